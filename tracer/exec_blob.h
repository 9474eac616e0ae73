/* The code a new image runs before its first instruction to map the gate, the region
 * and stub memory and to write its loader's known patches (exec_blob.S, written at
 * the loader's entry by early.c): where its data lies, for the assembler and for the
 * tracer that fills it in. The data follows the code (exec_blob_data); offsets below
 * are from there, but for the bytes it writes and their records, which wait in the
 * region (EXEC_BLOB_STAGE). At its last stop r13 holds how many calls it made
 * through the gate (instrument_syscalls). */
#ifndef SYSTRACE_EXEC_BLOB_H
#define SYSTRACE_EXEC_BLOB_H

#define EXEC_BLOB_REGION_SIZE 0   /* the region's size */
#define EXEC_BLOB_GATE_LEN 8      /* bytes of gate code to copy ... */
#define EXEC_BLOB_GATE_AT 16      /* ... from this offset */
#define EXEC_BLOB_NAREAS 24       /* stub memory to map at fixed places: */
#define EXEC_BLOB_AREAS 32        /* {address, size} x EXEC_BLOB_MAX_AREAS */
#define EXEC_BLOB_MAX_AREAS 2
#define EXEC_BLOB_NWRITES 64      /* bytes to write through /proc/self/mem: */
#define EXEC_BLOB_WRITES_AT 72    /* records {address u64, length u32, offset u32},
                                     offsets from the stage (EXEC_BLOB_STAGE) */
#define EXEC_BLOB_WRITE_SIZE 16
#define EXEC_BLOB_PATH 80         /* "/proc/<tracer>/fd/<region>", NUL-terminated */
#define EXEC_BLOB_PATH_MAX 64
#define EXEC_BLOB_REGION_DEV 144  /* what stat of that path says if it is the region: */
#define EXEC_BLOB_REGION_INO 152  /* st_dev and st_ino */
#define EXEC_BLOB_SOCKETS 160     /* the tracer's socket, by each of its names, */
#define EXEC_BLOB_NSOCKETS 2      /* tried in turn (region_handout.h): each its */
#define EXEC_BLOB_SOCKET_SIZE 120 /* sockaddr_un's length (0: none), and the */
#define EXEC_BLOB_SOCKET_MAX 112  /* sockaddr_un */
#define EXEC_BLOB_TAIL 400        /* gate_exec_tail's address; 0: end at a stop */
#define EXEC_BLOB_DROP_START 408  /* the loader's pages the code is written over */
#define EXEC_BLOB_DROP_LEN 416
#define EXEC_BLOB_ENTRY 424       /* the loader's entry, and rflags at the exec event */
#define EXEC_BLOB_RFLAGS 432
#define EXEC_BLOB_GS 440          /* the thread's %gs base: its slot in the region */
#define EXEC_BLOB_STAGE 448       /* the offset in the region of the slot's staging
                                     area (shared_region.h): the bytes to write and
                                     their records, put there by the tracer */
#define EXEC_BLOB_HEADER 456

/* Its first call, the gate page's mapping, which the filter lets through from
 * anywhere (tracer/filter.c): read, write, execute; private, anonymous,
 * fixed-noreplace. */
#define EXEC_BLOB_GATE_PROT 7
#define EXEC_BLOB_GATE_FLAGS 0x100022

/* How far it got (r15 at its last stop): */
#define EXEC_BLOB_DONE 0          /* all of it */
#define EXEC_BLOB_NO_GATE 1       /* the gate's address was taken */
#define EXEC_BLOB_NO_REGION 2     /* the gate is mapped, the region is not */
#define EXEC_BLOB_NO_AREA 3       /* the region is mapped, not all stub memory */
#define EXEC_BLOB_NO_WRITE 4      /* stub memory is mapped, not every byte written */
#define EXEC_BLOB_ASKS 5          /* at the stop where it asks the tracer for the
                                     region (connected to its socket) */

#ifndef __ASSEMBLER__
#include <stdint.h>

extern const uint8_t exec_blob[], exec_blob_data[];

struct exec_blob_write {
	uint64_t addr;
	uint32_t len, offset;
};
_Static_assert(sizeof(struct exec_blob_write) == EXEC_BLOB_WRITE_SIZE, "the assembler's record size");
#endif

#endif
