/* memory-estimate: reports the activation-memory profile of each function
 * (lib/Analysis/MemoryEstimate.c) without changing the IR.
 *
 * By default one remark per function names the peak; `per-op` adds a remark
 * with the live bytes on every op of the body; `report=PATH` writes the whole
 * profile of every function as JSON. `callees` lets calls include the
 * callees' own memory, which reads other functions: a function pass may only
 * do that when functions are not processed in parallel. */
#include "Analysis/Analysis.h"
#include "IR/IR.h"
#include "Analysis/Analysis.h"

#include "mlir-c/BuiltinAttributes.h"

#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const MemoptPassOptionInfo options[] = {
    {"per-op", MemoptOptionBool, "false", "Emit a remark with the live bytes on every op of the body",
     NULL, 0, 0},
    {"report", MemoptOptionOutputFile, "",
     "Write the profile of every function (bytes per op, peak, buffers) as JSON to this file", NULL,
     0, 0},
    {"callees", MemoptOptionBool, "false",
     "Analyze called functions so that calls count their memory (needs --mlir-disable-threading)",
     NULL, 0, 0},
};

static void emit(MlirOperation op, MlirDiagnosticSeverity severity, const char *message) {
  memoptEmitDiagnostic(mlirOperationGetLocation(op), severity, message);
}

static MlirStringRef opName(MlirOperation op) {
  return mlirIdentifierStr(mlirOperationGetName(op));
}

static bool anyUnknownSize(const MemoptMemoryProfile *profile) {
  for (size_t p = 0; p < memoptMemoryProfileGetNumPositions(profile); ++p)
    if (memoptMemoryProfileHasUnknownSize(profile, p))
      return true;
  return false;
}

static void reportPeak(MlirOperation func, const MemoptMemoryProfile *profile) {
  size_t peak = memoptMemoryProfileGetPeakPosition(profile);
  MlirStringRef name = opName(memoptMemoryProfileGetPositionOp(profile, peak));
  MemoptStringBuffer message = memoptStringBufferCreate();
  if (anyUnknownSize(profile))
    memoptStringBufferAppendFormat(&message,
                                   "peak activation memory: unknown (dynamic shapes); at least "
                                   "%llu bytes at '%.*s' (position %zu)",
                                   (unsigned long long)memoptMemoryProfileGetPeakBytes(profile),
                                   (int)name.length, name.data, peak);
  else
    memoptStringBufferAppendFormat(&message, "peak activation memory: %llu bytes at '%.*s' (position %zu)",
                                   (unsigned long long)memoptMemoryProfileGetPeakBytes(profile),
                                   (int)name.length, name.data, peak);
  emit(func, MlirDiagnosticRemark, message.data);
  memoptStringBufferDestroy(&message);
}

static void reportPerOp(const MemoptMemoryProfile *profile) {
  for (size_t p = 0; p < memoptMemoryProfileGetNumPositions(profile); ++p) {
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "live activation memory: %llu bytes%s",
                                   (unsigned long long)memoptMemoryProfileGetLiveBytes(profile, p),
                                   memoptMemoryProfileHasUnknownSize(profile, p)
                                       ? " and buffers of unknown size"
                                       : "");
    emit(memoptMemoryProfileGetPositionOp(profile, p), MlirDiagnosticRemark, message.data);
    memoptStringBufferDestroy(&message);
  }
}

static void reportNotes(MlirOperation func, const MemoptMemoryProfile *profile) {
  for (size_t i = 0; i < memoptMemoryProfileGetNumNotes(profile); ++i) {
    MlirOperation op;
    const char *note = memoptMemoryProfileGetNote(profile, i, &op);
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "memory estimate: %s", note);
    emit(op, MlirDiagnosticRemark, message.data);
    memoptStringBufferDestroy(&message);
  }
  size_t omitted = memoptMemoryProfileGetNumOmittedNotes(profile);
  if (omitted) {
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "memory estimate: %zu more notes omitted", omitted);
    emit(func, MlirDiagnosticRemark, message.data);
    memoptStringBufferDestroy(&message);
  }
}

/*===------------------------------------------------------------------===*
 * JSON report
 *===------------------------------------------------------------------===*/

static json_t *jsonStringRef(MlirStringRef text) {
  return json_stringn(text.data, text.length);
}

static json_t *jsonBytes(uint64_t bytes) { return json_integer((json_int_t)bytes); }

/* Adds "op" and, when the op has a file position, "line". */
static void describeOp(json_t *object, MlirOperation op) {
  json_object_set_new(object, "op", jsonStringRef(opName(op)));
  MlirStringRef file;
  unsigned line, column;
  if (memoptLocationPosition(mlirOperationGetLocation(op), &file, &line, &column))
    json_object_set_new(object, "line", json_integer(line));
}

static json_t *describeBuffer(const MemoptBufferInfo *buffer, MlirAsmState state) {
  json_t *object = json_object();
  json_object_set_new(object, "kind", json_string(memoptBufferKindName(buffer->kind)));
  describeOp(object, buffer->op);
  MemoptStringBuffer value = memoptStringBufferCreate();
  mlirValuePrintAsOperand(buffer->value, state, memoptAppendToBuffer, &value);
  json_object_set_new(object, "value", json_string(memoptStringBufferGet(&value)));
  memoptStringBufferDestroy(&value);
  if (buffer->sizeKnown)
    json_object_set_new(object, "bytes", jsonBytes(buffer->bytes));
  else
    json_object_set_new(object, "bytes", json_null());
  json_object_set_new(object, "alignment", jsonBytes(buffer->alignment));
  json_object_set_new(object, "first_position", json_integer((json_int_t)buffer->firstPosition));
  json_object_set_new(object, "last_position", json_integer((json_int_t)buffer->lastPosition));
  json_object_set_new(object, "nested", json_boolean(buffer->nested));
  json_object_set_new(object, "escapes", json_boolean(buffer->escapes));
  return object;
}

static MlirStringRef functionName(MlirOperation func) {
  MlirAttribute name = mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("sym_name"));
  if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name))
    return mlirStringRefCreateFromCString("");
  return mlirStringAttrGetValue(name);
}

static json_t *describeProfile(MlirOperation func, const MemoptMemoryProfile *profile) {
  json_t *object = json_object();
  json_object_set_new(object, "name", jsonStringRef(functionName(func)));
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  MlirAsmState state = mlirAsmStateCreateForOperation(func, flags);

  json_t *positions = json_array();
  for (size_t p = 0; p < memoptMemoryProfileGetNumPositions(profile); ++p) {
    json_t *position = json_object();
    describeOp(position, memoptMemoryProfileGetPositionOp(profile, p));
    json_object_set_new(position, "live_bytes", jsonBytes(memoptMemoryProfileGetLiveBytes(profile, p)));
    json_object_set_new(position, "allocated_bytes",
                        jsonBytes(memoptMemoryProfileGetAllocatedBytes(profile, p)));
    json_object_set_new(position, "callee_bytes", jsonBytes(memoptMemoryProfileGetCalleeBytes(profile, p)));
    json_object_set_new(position, "unknown_size",
                        json_boolean(memoptMemoryProfileHasUnknownSize(profile, p)));
    /* The buffer each result lives in (null: an argument, a constant, a scalar). */
    MlirOperation op = memoptMemoryProfileGetPositionOp(profile, p);
    json_t *results = json_array();
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      size_t buffer;
      if (memoptMemoryProfileLookupBuffer(profile, mlirOperationGetResult(op, r), &buffer))
        json_array_append_new(results, json_integer((json_int_t)buffer));
      else
        json_array_append_new(results, json_null());
    }
    json_object_set_new(position, "result_buffers", results);
    json_array_append_new(positions, position);
  }

  size_t peak = memoptMemoryProfileGetPeakPosition(profile);
  json_t *peakObject = json_object();
  json_object_set_new(peakObject, "position", json_integer((json_int_t)peak));
  describeOp(peakObject, memoptMemoryProfileGetPositionOp(profile, peak));
  json_object_set_new(peakObject, "live_bytes", jsonBytes(memoptMemoryProfileGetPeakBytes(profile)));
  json_object_set_new(peakObject, "unknown_size", json_boolean(anyUnknownSize(profile)));
  size_t numLive = memoptMemoryProfileGetLiveBuffers(profile, peak, NULL, 0);
  size_t *live = memoptAllocateZeroed(numLive, sizeof *live);
  memoptMemoryProfileGetLiveBuffers(profile, peak, live, numLive);
  json_t *liveArray = json_array();
  for (size_t i = 0; i < numLive; ++i)
    json_array_append_new(liveArray, json_integer((json_int_t)live[i]));
  free(live);
  json_object_set_new(peakObject, "live_buffers", liveArray);
  json_object_set_new(object, "peak", peakObject);
  json_object_set_new(object, "peak_allocated_bytes",
                      jsonBytes(memoptMemoryProfileGetPeakAllocatedBytes(profile)));
  json_object_set_new(object, "positions", positions);

  json_t *buffers = json_array();
  for (size_t b = 0; b < memoptMemoryProfileGetNumBuffers(profile); ++b) {
    MemoptBufferInfo buffer = memoptMemoryProfileGetBuffer(profile, b);
    json_array_append_new(buffers, describeBuffer(&buffer, state));
  }
  json_object_set_new(object, "buffers", buffers);

  json_t *notes = json_array();
  for (size_t i = 0; i < memoptMemoryProfileGetNumNotes(profile); ++i) {
    MlirOperation op;
    const char *text = memoptMemoryProfileGetNote(profile, i, &op);
    json_t *note = json_object();
    describeOp(note, op);
    size_t notePosition;
    if (memoptMemoryProfileLookupPosition(profile, op, &notePosition))
      json_object_set_new(note, "position", json_integer((json_int_t)notePosition));
    json_object_set_new(note, "message", json_string(text));
    json_array_append_new(notes, note);
  }
  json_object_set_new(object, "notes", notes);
  json_object_set_new(object, "omitted_notes",
                      json_integer((json_int_t)memoptMemoryProfileGetNumOmittedNotes(profile)));
  mlirAsmStateDestroy(state);
  mlirOpPrintingFlagsDestroy(flags);
  return object;
}

/* The pass runs once per function, possibly on several threads at once, but
 * a report describes all functions of the module: each run adds its
 * function to the report of its path and rewrites the file (atomically), so
 * the file is complete once the last function is done. A report starts
 * afresh for each module (each --split-input-file chunk). */
typedef struct Report {
  char *path;
  const void *module;
  json_t *functions; /* object: function name -> profile */
} Report;

static pthread_mutex_t reportsLock = PTHREAD_MUTEX_INITIALIZER;
static Report *reports;
static size_t reportCount;

static Report *findReport(const char *path, const void *module) {
  for (size_t i = 0; i < reportCount; ++i)
    if (strcmp(reports[i].path, path) == 0) {
      if (reports[i].module != module) {
        json_object_clear(reports[i].functions);
        reports[i].module = module;
      }
      return &reports[i];
    }
  reports = memoptReallocArray(reports, reportCount + 1, sizeof *reports);
  reports[reportCount] = (Report){memoptStrndup(path, strlen(path)), module, json_object()};
  return &reports[reportCount++];
}

/* Functions are listed by name so that the file does not depend on which
 * thread finished first. */
static int compareNames(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool writeReport(const Report *report, MemoptStringBuffer *error) {
  size_t count = json_object_size(report->functions);
  const char **names = memoptAllocateZeroed(count, sizeof *names);
  size_t i = 0;
  const char *key;
  json_t *value;
  json_object_foreach(report->functions, key, value) names[i++] = key;
  qsort(names, count, sizeof *names, compareNames);
  json_t *list = json_array();
  for (i = 0; i < count; ++i)
    json_array_append(list, json_object_get(report->functions, names[i]));
  free(names);
  json_t *root = json_object();
  json_object_set_new(root, "functions", list);
  bool ok = memoptJsonWriteFile(root, report->path, JSON_INDENT(2), error);
  json_decref(root);
  return ok;
}

static bool addToReport(const char *path, MlirOperation func, json_t *entry,
                        MemoptStringBuffer *error) {
  MlirOperation module = mlirOperationGetParentOperation(func);
  MlirStringRef name = functionName(func);
  char *key = memoptStrndup(name.data, name.length);
  pthread_mutex_lock(&reportsLock);
  Report *report = findReport(path, module.ptr);
  json_object_set_new(report->functions, key, entry);
  bool ok = writeReport(report, error);
  pthread_mutex_unlock(&reportsLock);
  free(key);
  return ok;
}

/*===------------------------------------------------------------------===*
 * Pass
 *===------------------------------------------------------------------===*/

static MlirLogicalResult runMemoryEstimate(MlirOperation func, const MemoptPassOptions *passOptions) {
  /* Declarations have no activations. */
  if (mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))))
    return mlirLogicalResultSuccess();
  bool callees = memoptPassOptionsGetBool(passOptions, "callees");
  /* With one thread, functions are processed one after the other. */
  if (callees && mlirContextGetNumThreads(mlirOperationGetContext(func)) > 1) {
    emit(func, MlirDiagnosticError,
         "memory-estimate{callees=true} reads the called functions, which other threads may be "
         "changing: run with --mlir-disable-threading");
    return mlirLogicalResultFailure();
  }
  MemoptStringBuffer error = memoptStringBufferCreate();
  MemoptMemoryProfile *profile = memoptMemoryProfileCreate(func, callees, &error);
  const char *reportPath = memoptPassOptionsGetString(passOptions, "report");
  json_t *entry = NULL;
  if (!profile) {
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "memory estimate not available: %s", error.data);
    emit(func, MlirDiagnosticRemark, message.data);
    memoptStringBufferDestroy(&message);
    if (*reportPath) {
      entry = json_object();
      json_object_set_new(entry, "name", jsonStringRef(functionName(func)));
      json_object_set_new(entry, "error", json_string(memoptStringBufferGet(&error)));
    }
  } else {
    reportNotes(func, profile);
    if (memoptPassOptionsGetBool(passOptions, "per-op"))
      reportPerOp(profile);
    reportPeak(func, profile);
    if (*reportPath)
      entry = describeProfile(func, profile);
  }
  memoptStringBufferClear(&error);
  bool ok = true;
  if (entry && !addToReport(reportPath, func, entry, &error)) {
    MemoptStringBuffer message = memoptStringBufferCreate();
    memoptStringBufferAppendFormat(&message, "cannot write the memory report: %s", error.data);
    emit(func, MlirDiagnosticError, message.data);
    memoptStringBufferDestroy(&message);
    ok = false;
  }
  memoptMemoryProfileDestroy(profile);
  memoptStringBufferDestroy(&error);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

const MemoptPassInfo memoptMemoryEstimatePass = {
    .argument = "memory-estimate",
    .summary = "Report the activation memory each function needs once bufferized (peak, per op, JSON)",
    .anchor = "func.func",
    .options = options,
    .optionCount = sizeof options / sizeof *options,
    .run = runMemoryEstimate,
};
