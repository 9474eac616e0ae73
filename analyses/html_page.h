/* The static parts of the HTML report (html_report.c writes the data between them):
 * inline CSS and JavaScript, nothing fetched from the network. */
#ifndef SYSTRACE_HTML_PAGE_H
#define SYSTRACE_HTML_PAGE_H

/* From <!DOCTYPE> to the opening of the data element. */
extern const char html_page_head[];
/* From the end of the data element to </html>: the script that draws the page. */
extern const char html_page_tail[];

#endif
