/* Internal interface between the parts of memopt_rt (not installed): the
 * allocator's per-block accounting that eviction needs, and the baseline of
 * the current run. */
#ifndef MEMOPT_RUNTIME_BLOCKS_H
#define MEMOPT_RUNTIME_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

/// Returns the counted size of a live, resident block this library allocated, or -1 for any other pointer.
int64_t memoptRtBlockResidentSize(const void *payload);

/// Returns the size of an evicted block this library allocated, or -1 for any other pointer.
int64_t memoptRtBlockEvictedSize(const void *payload);

/// Stops counting a resident block (it is evicted); returns its size.
int64_t memoptRtBlockUncount(void *payload);

/// Counts an evicted block again (it is about to be refilled); returns its size.
int64_t memoptRtBlockRecount(void *payload);

/// Returns the live bytes the current run started with, or 0 outside a run.
int64_t memoptRtRunBaselineBytes(void);

/// Makes room for an allocation of `size` bytes under the limit by evicting registered buffers (Eviction.c).
void memoptRtEvictionMakeRoom(int64_t size);

/// Drops `payload` from the evictable buffers, if it is one (it is being freed).
void memoptRtEvictionForget(const void *payload);

#endif /* MEMOPT_RUNTIME_BLOCKS_H */
