/* Names syscall sites: which mapped object each lies in, at which offset and in which
 * symbol. Objects are read once per run, keyed by device, inode, size, mtime and
 * ctime. */
#ifndef SYSTRACE_OBJECTS_H
#define SYSTRACE_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "code_scan.h"
#include "patch_plan.h"
#include "image_record.h"
#include "layouts.h"

/* Opens the mappings of tid, a live thread, for the calls below; false if gone.
 * Begins nest: the calls below, which begin and end themselves, reuse what an outer
 * begin for the same thread opened. */
bool objects_begin(pid_t tid);
/* Names a site from those mappings and marks it named. */
void objects_name_site(pid_t tid, struct site_record *s);
void objects_end(void);
struct object;

/* The object mapped executable at addr in tid's memory (NULL: none, or not a file's);
 * false if tid is gone. */
bool objects_at(pid_t tid, uint64_t addr, const struct object **o);

/* What patching needs of the object a code address lies in. */
struct code_object {
	uint64_t bias;                 /* runtime address minus ELF address */
	uint64_t map_start, map_end;   /* the executable mapping holding it */
	const struct code_scan *scan;  /* the object's sweep, in ELF addresses */
	struct object *object;
};

/* Names s from tid's mappings and fills code; returns NULL, or why the site's code
 * cannot be patched (no object file behind it, ...). Opens and closes the mappings
 * itself. */
const char *objects_code_of(pid_t tid, struct site_record *s, struct code_object *code);
/* Keeps, for the rest of the run, that the object's site can be patched as plan
 * says (plan in runtime addresses of the process code describes); the site's index
 * among the object's known sites (site_history.h counts by it). */
uint32_t objects_learn(const struct code_object *code, const struct patch_plan *plan, uint64_t stamp);
/* The stamp its site `index` was learned with (the newest image's serial then:
 * an image with a greater serial began knowing it). */
uint64_t objects_known_since(const struct object *o, uint32_t index);
/* The plan learned for the object's site at addr (in runtime addresses of the
 * process code describes), and its index; false if none. */
bool objects_known_plan(const struct code_object *code, uint64_t addr, struct patch_plan *plan, uint32_t *index);
/* Keeps that the object's site at addr cannot be patched, and why (a reason that
 * holds in every process: the code's, not this memory's); and finds it again. */
void objects_learn_refusal(const struct code_object *code, uint64_t addr, const char *reason);
const char *objects_refusal(const struct code_object *code, uint64_t addr);
/* Calls fn for every site learned in any object mapped executable in tid's memory
 * that want (if not NULL) takes, with the site named, the plan in tid's addresses,
 * its object and its index there; false if tid is gone. want is asked first, so
 * that the sites not taken cost no naming. */
typedef void objects_known_fn(void *arg, const struct site_record *named, const struct patch_plan *plan,
			      const struct object *o, uint32_t index);
typedef bool objects_want_fn(void *arg, const struct object *o, uint32_t index);
/* mapped (if not NULL) is called first for every file mapped executable, with its
 * object (NULL: unreadable) and where (objects_for_each_known only). */
typedef void objects_mapped_fn(void *arg, struct object *o, uint64_t start, uint64_t end, uint64_t file_offset);
struct known_visit {
	objects_want_fn *want;
	objects_known_fn *fn;
	void *arg;
	objects_mapped_fn *mapped;
};
bool objects_for_each_known(pid_t tid, const struct known_visit *v);
/* The same for object o, as if mapped executable at [start, end) from file_offset
 * (where it is expected, not read from /proc: lib_hook.h). */
void objects_for_each_known_predicted(struct object *o, uint64_t start, uint64_t end, uint64_t file_offset,
				      const struct known_visit *v);
/* At an exec event (rip: the image's first instruction): the loader's code, the
 * executable mapping at rip unless it is the executable itself (a static program:
 * false), and the executable's object, lowest executable address and path. The
 * path is the lowest executable mapping's when another file's code is at rip (at
 * an exec event nothing but the executable and its loader is mapped); else (a
 * static program, a loader run as the program, a loader mapped below the
 * executable) exe_path(tid) says it (a readlink: the new process's /proc/PID/exe
 * entry, made for this one read, was 15 us of a libiberty image). */
struct exec_code {
	uint64_t loader_start, loader_end, exe_start;
	uint64_t loader_base;  /* where its file's first byte is mapped: its lowest mapping */
	struct object *exe, *loader;
	char *exe_path;        /* malloc'd, the caller's to free; NULL: not known */
};
bool objects_at_exec(pid_t tid, uint64_t rip, char *(*exe_path)(pid_t), struct exec_code *c);
/* At that exec event: len bytes of the loader's code at addr as the exec mapped them,
 * from the tracer's own mapping of its file (checked at this stop: no page of the
 * process faulted in for a read); false if they do not all lie in its code mapping
 * and its file (read the process then). */
bool objects_exec_loader_bytes(const struct exec_code *c, uint64_t addr, void *buf, size_t len);
/* The executable's object: the one of the lowest executable mapping; NULL if none. */
struct object *objects_exe_of(pid_t tid);
/* The same for the one object mapped at addr. */
void objects_for_each_known_at(pid_t tid, uint64_t addr, const struct known_visit *v);
/* For --prepatch: calls fn for every syscall instruction that the sweep finds in each
 * object mapped executable in tid's memory, once per object in the run. */
typedef void objects_syscall_fn(void *arg, const struct code_object *code, uint64_t addr);
void objects_for_each_new_syscall(pid_t tid, objects_syscall_fn *fn, void *arg);
/* --libc-calls (tracer/libc_calls.h). The executable mapping holding addr in tid's
 * memory, if its path matches: [start, end), runtime minus ELF address, and its
 * object with its exported functions read; false if not. */
struct mapped_object {
	uint64_t start, end, bias;
	struct object *object;
};
bool objects_find_mapped(pid_t tid, uint64_t addr, bool (*matches)(const char *path), struct mapped_object *m);
/* The function at ELF address vaddr of o: starting there (exact), by its exported
 * names (patcher/function_names.h); or (not exact) the exported one containing it,
 * else the one of o's own symbols (.symtab, debug file) containing it; NULL if none. */
const char *objects_function_name(struct object *o, uint64_t vaddr, bool exact);
/* Reads len bytes at ELF address vaddr of o (found by objects_find_mapped) from the
 * tracer's own mapping of its file, where they lie in a segment the program cannot
 * write; false otherwise (read the process then). */
bool objects_read_readonly(const struct object *o, uint64_t vaddr, void *buf, size_t len);
/* The path that names o's sites (site_record.object points to it). */
const char *objects_path(const struct object *o);
/* Counts one call at o's site vaddr through a libc entry point, for every process;
 * and the one seen most there so far (NULL: none). */
void objects_learn_entry(struct object *o, uint64_t vaddr, const char *name);
const char *objects_learned_entry(const struct object *o, uint64_t vaddr);
/* Keeps the layout seen in an image of exe run by loader, whose code lay at
 * loader_start (layouts.h). */
void objects_set_layout(struct object *exe, const struct object *loader, uint64_t loader_start,
			const struct layout_entry *e, size_t n);
/* The layout to expect in an image of exe that loader runs from loader_start (else
 * NULL); guess: room for one that no image showed (layouts_for). */
const struct layout_entry *objects_layout(const struct object *exe, const struct object *loader,
					  uint64_t loader_start, struct layout_entry guess[LAYOUT_MAX], size_t *n);
/* Where a loader takes the libraries' hook (lib_hook.h): the ELF address of its
 * _dl_allocate_tls_init, read from its .dynsym once; false if it has none. */
bool objects_loader_hook(struct object *loader, uint64_t *vaddr);
/* o's build-id and the ELF address it is mapped at; false if none is mapped. */
bool objects_build_id(const struct object *o, uint64_t *vaddr, const uint8_t **bytes, size_t *len);
/* The ELF address mapped at file offset 0 (the bias is where that lies minus it). */
bool objects_vaddr_of_offset(const struct object *o, uint64_t file_offset, uint64_t *vaddr);
/* At start-up: where the sweeps are kept between runs (patcher/scan_cache.h), and
 * the pins' release when descriptors run short (fd_limit.h). */
void objects_setup(void);
/* The calling thread's objects, taken out of its cache (its end); and freed, once
 * the writer has written every image whose sites name them (after offload_finish:
 * an image handed from one tracer thread to another carries names of the
 * sender's objects). */
struct object **objects_release(void);
void objects_free(struct object **all);

#endif
