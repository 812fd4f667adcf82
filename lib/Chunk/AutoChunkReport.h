/* What autochunk decided, as a JSON report and an SVG memory timeline
 * (internal to lib/Chunk). */
#ifndef MEMOPT_CHUNK_AUTOCHUNKREPORT_H
#define MEMOPT_CHUNK_AUTOCHUNKREPORT_H

#include "Chunk/Chunk.h"
#include "Chunk/AutoChunk.h"

/// The decisions of one autochunk run (opaque).
typedef struct AutoChunkReport AutoChunkReport;

/// The decisions for one function (owned by its report).
typedef struct AutoChunkReportFunction AutoChunkReportFunction;

/// Returns an empty report; the caller destroys it.
AutoChunkReport *autoChunkReportCreate(void);

/// Frees a report.
void autoChunkReportDestroy(AutoChunkReport *report);

/// Starts the entry of `func`, with its budget and its profile before chunking.
AutoChunkReportFunction *autoChunkReportAddFunction(AutoChunkReport *report, MlirOperation func,
                                                    uint64_t budget,
                                                    const MemoptMemoryProfile *before);

/// Records one stage: the choice applied and the peak before it.
void autoChunkReportAddStage(AutoChunkReportFunction *entry, const AutoChunkChoice *choice,
                             uint64_t peakBefore);

/// Records the profile after the last stage.
void autoChunkReportFinish(AutoChunkReportFunction *entry, const MemoptMemoryProfile *after);

/// Writes the report as JSON to `path` (atomically); false with `error` set on failure.
bool autoChunkReportWriteJson(const AutoChunkReport *report, const char *path,
                              MemoptStringBuffer *error);

/// Writes an SVG timeline per function (live bytes by op position, before and
/// after, with the budget) to `path`; false with `error` set on failure.
bool autoChunkReportWriteTimeline(const AutoChunkReport *report, const char *path,
                                  MemoptStringBuffer *error);

#endif /* MEMOPT_CHUNK_AUTOCHUNKREPORT_H */
