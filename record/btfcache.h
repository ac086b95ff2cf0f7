/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * btfcache.h - the cached BTF the BPF object's CO-RE relocations are
 * resolved against (docs/tracer-record.md "FILES").
 *
 * libbpf 1.1 resolves each CO-RE relocation's local type by a linear scan of
 * the kernel's whole BTF (some 126,000 types on Linux 6.18) for types of the
 * same name: one scan per local type relocated, about 0.8 ms each, 26 ms of
 * the start-up's CPU. The cache is a small BTF made from the running
 * kernel's: every kernel type named as one of the object's local types,
 * with every type embedded in it (members, array elements, typedefs,
 * modifiers); pointers in it point to void (a CO-RE access path never
 * crosses one). The types the programs cast to with
 * bpf_core_type_id_kernel() keep their kernel ids (the other types fill
 * the ids below, void pointers the ids left over), so every relocation,
 * type ids included, comes out as with the kernel's BTF: the programs
 * loaded are the same instructions.
 *
 * The file: DIR/vmlinux.btf, raw BTF (libbpf's format) whose type 1 is an
 * extra enum, tracer_record_btf_cache (its names first in the strings),
 * whose values hold the format (1), the key
 * and which tp_btf tracepoints the kernel has (those the sampler may attach
 * to). The key is the boot (/proc/sys/kernel/random/boot_id), the size of
 * /sys/kernel/btf/vmlinux (the kernel's BTF cannot change within a boot,
 * and another kernel is another boot) and a hash of the recorder's BPF
 * object (another build of the recorder builds its own). DIR is
 * $TRACER_RECORD_BTF_CACHE, default /var/cache/tracer-record ("off": no
 * cache); it must be a directory owned by root and writable by no one
 * else, and the file a regular file (not a symbolic link) owned by root
 * and writable by no one else, or neither is used. A missing, stale,
 * unreadable or malformed cache is not used (the start-up then takes the
 * full path) and is built again, in a thread, from the kernel's BTF once
 * the recording runs (rec_bpf_setup, rec_btf_cache_build in recorder.h); it
 * is written to a temporary file, synced and renamed into place.
 *
 * Not thread-safe; one handle per recorder.
 */
#ifndef TRACER_BTFCACHE_H
#define TRACER_BTFCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;
struct btfc;

/*
 * Look the cache up (DIR as above) and check it against this boot, kernel
 * and obj[0..obj_size), the BPF object's ELF bytes (not kept). Returns a
 * handle, NULL only when out of memory; btfc_path() then says whether it
 * is usable. Reads the boot id, stats the kernel's BTF and reads the cache's key
 * (its type 1, the enum: a few reads, no parse; libbpf parses the file at
 * the load). Never prints.
 */
struct btfc *btfc_open(const void *obj, size_t obj_size);

/* "/proc/self/fd/N" of the checked cache file, for libbpf's btf_custom_path
 * (the same file as checked, whatever happens to DIR), or NULL when the
 * cache is not usable. Owned by c. */
const char *btfc_path(const struct btfc *c);

/* Whether the kernel has the tp_btf tracepoint name, as the usable cache
 * recorded it (one of the names given to btfc_build_start): 1 or 0, -1
 * when not known. */
int btfc_tp(const struct btfc *c, const char *name);

/* Why the cache is not used, for -v ("none", "stale: another boot", ...),
 * or "used". Static or owned by c. */
const char *btfc_status(const struct btfc *c);

/* The load with the cache failed: stop using it (btfc_path() is NULL
 * after) and build it again. */
void btfc_reject(struct btfc *c);

/*
 * When the cache was not used and DIR is usable and writable by this
 * process: build it in a thread from
 * the kernel's BTF and local, the object's own BTF (copied here; the
 * caller keeps local), recording whether the kernel has each of the tp_btf
 * tracepoints tps[0..ntps) (at most 8; the strings must outlive c).
 * Returns 0 when a build started or none is needed, -1 when it could not
 * start (out of memory, no thread).
 */
int btfc_build_start(struct btfc *c, const struct btf *local, const char *const *tps, int ntps);

/* Wait for a build under way (the recorder waits before it exits: some
 * 30-60 ms of CPU, once a boot), close the cache, free c. NULL is fine.
 * built, when not NULL, gets what the build did ("" when none ran). */
void btfc_free(struct btfc *c, char *built, size_t size);

/* The part of a BTF type name libbpf compares when it looks for CO-RE
 * candidates: the length of name without a "___flavour" suffix (as
 * libbpf's bpf_core_essential_name_len). */
size_t btfc_essential_len(const char *name);

#endif
