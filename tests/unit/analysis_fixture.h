/* A handcrafted run shared by the tests of the analyses and of the exports: five
 * process images (pid 101 reused, with image 1 twice, and one exe that needs CSV
 * quoting), their sites with and without libc_function, and a summary. */
#ifndef SYSTRACE_TEST_ANALYSIS_FIXTURE_H
#define SYSTRACE_TEST_ANALYSIS_FIXTURE_H

#define FIXTURE_PROCESS_HEADER_FIELDS                                                                       \
	"pid,image,ppid,exe,start_ns,end_ns,syscalls,early,ptraced,inprocess,sites_patched,exit,ptrace_stops," \
	"stops_lifecycle,stops_early,stops_late,patches_written,patches_not_amortized,patch_ns"
#define FIXTURE_PROCESS_HEADER FIXTURE_PROCESS_HEADER_FIELDS "\n"

/* rows: 0 sh 500 ms, 1 sh 1 ms (exec), 2 weird 10 ms, 3 sh 1 ms (pid reused), 4 cat 50 ms */
#define FIXTURE_PROCESSES                                                                             \
	FIXTURE_PROCESS_HEADER                                                                        \
	"100,1,1,/bin/sh,1000000000,1500000000,50,10,20,30,5,exit:0,25,5,10,10,6,2,60000\n"            \
	"101,0,100,/bin/sh,1100000000,1101000000,1,0,0,1,0,exec,3,3,0,0,0,0,0\n"                     \
	"101,1,100,\"/bin/we,ird \"\"x\"\"\",1101000000,1111000000,40,20,10,30,4,exit:1,18,2,12,4,8,5,80000\n" \
	"101,0,100,/bin/sh,1190000000,1191000000,1,0,0,1,0,exec,3,3,0,0,0,0,0\n"                     \
	"101,1,100,/bin/cat,1200000000,1250000000,20,5,5,15,3,exit:0,8,2,4,2,4,3,40000\n"

#define FIXTURE_SITE_HEADER                                                                               \
	"pid,image,object,offset,symbol,syscall,state,ptraced,inprocess,address,patch_ns,break_even,amortized," \
	"libc_function,patched_ns\n"

#define FIXTURE_SITES                                                                                          \
	FIXTURE_SITE_HEADER                                                                                    \
	"100,1,/lib/libc.so.6,0x10,read+0x5,read,patched,1,0,0x7f10,10000,2,no,fread,1000100000\n"            \
	"100,1,/lib/libc.so.6,0x20,write+0x5,write,patched,1,9,0x7f20,10000,2,yes,printf,1000200000\n"        \
	"101,0,/lib/libc.so.6,0x70,sigprocmask+0x2,rt_sigprocmask,patched,0,1,0x7f70,,,,,\n"                   \
	"101,1,/lib/libc.so.6,0x10,read+0x5,read,patched,1,1,0x7f10,10000,2,no,fread,1102000000\n"             \
	"101,1,/lib/libc.so.6,0x18,__read_nocancel+0x8,read,patched,1,0,0x7f18,10000,2,no,fread,1102000000\n"  \
	"101,1,/lib/libc.so.6,0x30,open@@GLIBC_2.2.5+0x9,openat,patched,1,0,0x7f30,10000,2,no,fopen,\n"       \
	"101,1,/lib/ld.so,0x40,_dl_x+0x1,mmap,patched,1,0,0x7f40,5000,1,no,,1101500000\n"                     \
	"101,0,/lib/libc.so.6,0x70,sigprocmask+0x2,rt_sigprocmask,patched,0,1,0x7f70,,,,,\n"                   \
	"101,1,/lib/libc.so.6,0x10,read+0x5,read,patched,1,0,0x7f10,10000,2,no,fread,1200100000\n"             \
	"101,1,/lib/libc.so.6,0x30,open@@GLIBC_2.2.5+0x9,openat,patched,1,0,0x7f30,12000,3,no,fopen,1200200000\n" \
	"101,1,/lib/libc.so.6,0x60,close+0x2,close,patched,1,5,0x7f60,10000,2,yes,fclose,1200300000\n"

/* the sums of the process rows, and the figures the tracer writes with them */
#define FIXTURE_SUMMARY                                                                             \
	"metric,value\nsyscalls,112\nsyscalls_early,35\nsyscalls_ptraced,35\nsyscalls_inprocess,77\n" \
	"processes,5\nptrace_stops,57\nptrace_stops_lifecycle,15\nptrace_stops_early,26\n"           \
	"ptrace_stops_late,16\npatches_written,18\npatch_ns,180000\nwall_ns,600000000\n"             \
	"saving_per_call_ns,5000\nbreak_even_calls,2\npatches_not_amortized,10\n"

#endif
