/* The subcommands of systrace-stats (main.c): each takes the
 * arguments after its name and returns the exit status (0, 1 on bad data, 2 on bad
 * usage). */
#ifndef SYSTRACE_COMMANDS_H
#define SYSTRACE_COMMANDS_H

int log2csv_main(int argc, char **argv);  /* the temporal log to CSV */
int report_main(int argc, char **argv);   /* the analyses of the CSV files */
int export_main(int argc, char **argv);   /* Chrome/Perfetto trace-event JSON */
int html_main(int argc, char **argv);     /* a self-contained HTML report */

#endif
