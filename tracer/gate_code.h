/* The code of the region's first page (gate_code.S): where each part lies, as an
 * address in a traced process. */
#ifndef SYSTRACE_GATE_CODE_H
#define SYSTRACE_GATE_CODE_H

#include <stdint.h>

#include "gate.h"

extern const uint8_t gate_code[], gate_code_end[], gate_stackless[];
extern const uint8_t gate_log_call[], gate_log_retry[], gate_log_committed[];
extern const uint8_t gate_log_returned[], gate_log_check[], gate_log_checked[];
extern const uint8_t gate_time_call[], gate_time_start[], gate_time_timed[], gate_time_returned[];
extern const uint8_t gate_time_took[], gate_time_max[], gate_time_max_done[], gate_time_min[];
extern const uint8_t gate_time_min_done[];
extern const uint8_t gate_pad_syscall[], gate_pad[], gate_pad_end[];
extern const uint8_t gate_time_pad_syscall[], gate_time_pad[], gate_time_pad_saved[];
extern const uint8_t gate_time_pad_rdx_saved[], gate_time_pad_stamped[];
extern const uint8_t gate_exec_tail[];

/* label's address in a traced process */
#define GATE_AT(label) (SYSTRACE_GATE_ADDR + (uint64_t)((label) - gate_code))

#endif
