/* Where a call went, from the bytes of the caller's code: the instruction that ends
 * at a return address, and the PLT entry it may have gone through. Plain byte
 * patterns of x86-64 code as compilers and linkers emit it for calls into another
 * object; anything else is "not known". */
#ifndef SYSTRACE_CALL_DECODE_H
#define SYSTRACE_CALL_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* The bytes before a return address that call_before reads: the longest form,
 * `call *disp32(%rip)`. */
#define CALL_BYTES 6
/* The bytes of a PLT entry that plt_entry_slot reads: `endbr64; bnd jmp *disp32(%rip)`. */
#define PLT_BYTES 11

enum call_kind {
	CALL_UNKNOWN,       /* not a form recognized (a call through a register, ...) */
	CALL_DIRECT,        /* `call rel32`: *to is the callee (or its PLT entry) */
	CALL_THROUGH_SLOT,  /* `call *disp32(%rip)` (-fno-plt): *to is the GOT slot holding it */
};

/* The call that ends at ret, code holding the CALL_BYTES bytes before ret. */
enum call_kind call_before(const uint8_t code[CALL_BYTES], uint64_t ret, uint64_t *to);
/* The GOT slot a PLT entry at addr jumps through (`jmp *disp32(%rip)`, optionally
 * after endbr64 and with a bnd prefix: .plt, .plt.sec, .plt.got); false if code is
 * not such an entry. */
bool plt_entry_slot(const uint8_t code[PLT_BYTES], uint64_t addr, uint64_t *slot);

#endif
