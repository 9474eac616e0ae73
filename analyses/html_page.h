/* The static parts of the HTML report, in the order html_report.c writes them, the
 * data between the first two: inline CSS and JavaScript, nothing fetched from the
 * network. */
#ifndef SYSTRACE_HTML_PAGE_H
#define SYSTRACE_HTML_PAGE_H

/* From <!DOCTYPE> to the opening of the data element (html_page.c). */
extern const char html_page_head[];
/* From the end of the data element: the script's helpers, the figures, the syscalls
 * per process and the functions to hook (html_page.c). */
extern const char html_page_script[];
/* The process timeline and its zoom (html_timeline.c). */
extern const char html_timeline_script[];
/* The table of syscalls that sorts (html_syscall_table.c). */
extern const char html_syscall_table_script[];
/* The end of the script and of the page (html_page.c). */
extern const char html_page_end[];

#endif
