/* The code a new image runs before its first instruction to map the gate, the region
 * and stub memory (exec_blob.S, written at the loader's entry by early.c): where its
 * data lies, for the assembler and for the tracer that fills it in. */
#ifndef SYSTRACE_EXEC_BLOB_H
#define SYSTRACE_EXEC_BLOB_H

/* offsets in the data that follows the code (exec_blob_data) */
#define EXEC_BLOB_REGION_SIZE 0   /* the region's size */
#define EXEC_BLOB_EXE_HINT 8      /* where to map stub memory near the executable, or 0 */
#define EXEC_BLOB_GATE_LEN 16     /* bytes of gate code to copy */
#define EXEC_BLOB_PATH 24         /* "/proc/<tracer>/fd/<region>", NUL-terminated */
#define EXEC_BLOB_PATH_MAX 64
#define EXEC_BLOB_GATE_COPY (EXEC_BLOB_PATH + EXEC_BLOB_PATH_MAX) /* the gate code */

#ifndef __ASSEMBLER__
#include <stdint.h>

extern const uint8_t exec_blob[], exec_blob_data[];
#endif

#endif
