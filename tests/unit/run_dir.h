/* Handcrafted output folders for the tests of the analyses and exports. */
#ifndef SYSTRACE_TEST_RUN_DIR_H
#define SYSTRACE_TEST_RUN_DIR_H

/* A new empty folder under /tmp (the caller removes it with run_dir_remove). */
char *run_dir_new(void);
/* Writes text as DIR/name. */
void run_dir_write(const char *dir, const char *name, const char *text);
void run_dir_remove(char *dir);

#endif
