/* Internal to lib/Analysis: the model of one-shot bufferization that the
 * memory profile is computed from.
 *
 *   IrFunction     an indexed copy of one func.func's structure (ops in
 *                  pre-order, blocks, tensor/memref values, operands, uses)
 *   semantics      per op, what bufferization does with each tensor operand
 *                  (read, write, which result aliases it), as the upstream
 *                  BufferizableOpInterface implementations declare
 *   in-place       One-Shot Analysis: which operands bufferize in place
 *
 * Other code reaches this through Analysis.h. */
#ifndef MEMOPT_ANALYSIS_BUFFERIZATIONMODEL_H
#define MEMOPT_ANALYSIS_BUFFERIZATIONMODEL_H

#include "Analysis/Analysis.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The index that stands for "none".
#define MEMOPT_NO_INDEX ((size_t)-1)

/*===------------------------------------------------------------------===*
 * Pointer maps: MLIR handles to dense indices
 *===------------------------------------------------------------------===*/

/// An open-addressing hash map from non-null pointers to indices.
typedef struct MemoptPointerMap {
  const void **keys;
  size_t *values;
  size_t capacity; /* a power of two */
  size_t count;
} MemoptPointerMap;

/// Returns an empty map.
MemoptPointerMap memoptPointerMapCreate(void);

/// Frees the map's memory.
void memoptPointerMapDestroy(MemoptPointerMap *map);

/// Maps `key` to `value`, replacing an earlier value.
void memoptPointerMapInsert(MemoptPointerMap *map, const void *key, size_t value);

/// Returns the value of `key`, or MEMOPT_NO_INDEX.
size_t memoptPointerMapLookup(const MemoptPointerMap *map, const void *key);

/// Sets `*value` to the value of `key` and returns true when it has one (for
/// maps whose values may be any size_t, MEMOPT_NO_INDEX included).
bool memoptPointerMapFind(const MemoptPointerMap *map, const void *key, size_t *value);

/*===------------------------------------------------------------------===*
 * Index lists and visit marks
 *===------------------------------------------------------------------===*/

/// A growable array of indices (ops, values or operands).
typedef struct IrIndexList {
  size_t *items;
  size_t count;
  size_t capacity;
} IrIndexList;

/// Appends `item`.
void memoptIndexListPush(IrIndexList *list, size_t item);

/// Appends `item` unless the list holds it already.
void memoptIndexListPushUnique(IrIndexList *list, size_t item);

/// Frees the list's memory and leaves it empty.
void memoptIndexListDestroy(IrIndexList *list);

/// Per-operand marks of one traversal; a slot holding the current stamp is marked (reset is O(1)).
typedef struct IrVisitMarks {
  unsigned *stamps; /* per operand */
  size_t size;
  unsigned current;
} IrVisitMarks;

/// Returns marks for `size` operands, none marked.
IrVisitMarks memoptVisitMarksCreate(size_t size);

/// Frees the marks' memory.
void memoptVisitMarksDestroy(IrVisitMarks *marks);

/// Starts a traversal: every operand is unmarked.
void memoptVisitMarksReset(IrVisitMarks *marks);

/// Marks `operand`; returns false when it was marked already.
bool memoptVisitMarksAdd(IrVisitMarks *marks, size_t operand);

/*===------------------------------------------------------------------===*
 * Bufferization semantics of ops
 *===------------------------------------------------------------------===*/

/// How bufferization treats an op as a whole.
typedef enum IrOpClass {
  IrOpOther,           /* no tensor or memref semantics that matter here */
  IrOpUnknown,         /* tensor op the model does not know: results get new buffers */
  IrOpDestination,     /* destination-style: each result is written into a tied init */
  IrOpElementwise,     /* arith/math on tensors, as convert-elementwise-to-linalg rewrites it */
  IrOpAllocation,      /* results are new buffers: tensor.empty, pad, concat, ... */
  IrOpView,            /* result 0 aliases operand 0: slices, reshapes, casts */
  IrOpSelect,          /* arith.select of whole tensors: result aliases either operand */
  IrOpConstant,        /* a tensor constant: a read-only global */
  IrOpReturn,          /* func.return */
  IrOpCall,            /* func.call */
  IrOpFor,             /* scf.for with tensor iter_args */
  IrOpIf,              /* scf.if / scf.index_switch */
  IrOpYield,           /* scf.yield */
  IrOpLoop,            /* other loops: their bodies repeat, tensors are not carried */
  IrOpToBuffer,        /* bufferization.to_buffer: a memref view of a tensor's buffer */
  IrOpToTensor,        /* bufferization.to_tensor: a tensor view of a memref */
  IrOpMemRefAlloc,     /* memref.alloc in the input */
  IrOpMemRefView,      /* memref view ops: result aliases operand 0 */
  IrOpMemRefGlobal     /* memref.get_global */
} IrOpClass;

/// What bufferization does with one operand of an op.
typedef struct IrOperandSemantics {
  bool read;          /* the op reads the operand's buffer */
  bool write;         /* the op writes the operand's buffer (when in place) */
  size_t aliasResult; /* the result sharing the operand's buffer, or MEMOPT_NO_INDEX */
  bool equivalent;    /* that result is the whole buffer, not a part of it */
  bool definite;      /* the result certainly aliases the operand */
  bool mustInPlace;   /* bufferization never copies this operand */
} IrOperandSemantics;

/*===------------------------------------------------------------------===*
 * IrFunction
 *===------------------------------------------------------------------===*/

/// One op of the function, in pre-order.
typedef struct IrOp {
  MlirOperation op;
  MlirStringRef name;
  IrOpClass opClass;
  size_t parent;       /* the enclosing op, or MEMOPT_NO_INDEX at the top level */
  size_t block;        /* the block holding the op */
  size_t position;     /* index of the op in its block */
  size_t subtreeEnd;   /* pre-order index one past the last op nested in this one */
  size_t firstOperand; /* into IrFunction.operands */
  size_t numOperands;
  size_t firstBlock;   /* blocks of the op's regions, consecutive, in order */
  size_t numBlocks;
  size_t callee;       /* IrOpCall: index into the callee summaries, or MEMOPT_NO_INDEX */
} IrOp;

/// One block of the function.
typedef struct IrBlock {
  MlirBlock block;
  size_t owner;      /* op whose region holds the block; MEMOPT_NO_INDEX for the body */
  size_t region;     /* region number in the owner */
  size_t firstOp;    /* into IrFunction.blockOps */
  size_t numOps;
  bool repetitive;   /* the body of a loop: its ops may run many times */
} IrBlock;

/// One tensor or memref value of the function.
typedef struct IrValue {
  MlirValue value;
  MlirType type;
  bool isTensor;     /* else a memref */
  size_t definingOp; /* MEMOPT_NO_INDEX for block arguments */
  size_t block;      /* block of the defining op, or the block owning the argument */
  size_t number;     /* result or argument number */
  size_t firstUse;   /* into IrFunction.uses */
  size_t numUses;
  size_t aliasParent; /* union-find of buffers that may alias */
  size_t aliasNext;   /* circular list of the alias set */
  size_t equivalenceParent; /* union-find of buffers that are the same */
} IrValue;

/// One operand of an op.
typedef struct IrOperand {
  size_t op;        /* owner */
  size_t number;    /* operand number */
  size_t value;     /* IrValue, or MEMOPT_NO_INDEX for other types */
  IrOperandSemantics semantics;
  bool inPlace;     /* decided by the in-place analysis */
} IrOperand;

/// What the analysis of a callee tells its callers.
typedef struct IrCalleeSummary {
  MlirOperation func;    /* the callee */
  bool external;         /* a declaration: arguments may be read and written */
  size_t numArguments;
  bool *argumentRead;
  bool *argumentWritten;
  size_t numResults;
  size_t *resultEquivalentArgument; /* per result: argument it is equivalent to, or MEMOPT_NO_INDEX */
  size_t *resultAliasedArgument;    /* per result: argument it may alias, or MEMOPT_NO_INDEX */
  bool *resultIdentityLayout;       /* per result: returned buffer has the identity layout */
  uint64_t *resultAlignment;        /* per result: alignment of the returned buffer */
  uint64_t peakBytes;          /* the callee's own peak, its results included */
  uint64_t peakAllocatedBytes;
  bool peakHasUnknownSize;
  bool approximate;            /* the callee's own profile has notes */
} IrCalleeSummary;

/// An indexed copy of one func.func's structure.
typedef struct IrFunction {
  MlirOperation func;
  IrOp *ops;
  size_t numOps;
  IrBlock *blocks;
  size_t numBlocks;
  size_t *blockOps;
  IrValue *values;
  size_t numValues;
  IrOperand *operands;
  size_t numOperands;
  size_t *uses; /* operand indices grouped by value */
  size_t numUsesTotal;
  const IrCalleeSummary *callees; /* owned by the caller of memoptIrFunctionBuild */
  MemoptPointerMap opIndex;
  MemoptPointerMap valueIndex;
  IrVisitMarks readMarks;  /* scratch of memoptValueIsRead */
  IrVisitMarks chainMarks; /* scratch of the reverse use-def chain walks */
  bool hasUnstructuredControlFlow; /* some region has several blocks */
} IrFunction;

/// Indexes `func` into `function` (freed with memoptIrFunctionDestroy); `resolveCallee` numbers each func.call's callee.
void memoptIrFunctionBuild(IrFunction *function, MlirOperation func,
                           size_t (*resolveCallee)(MlirOperation call, void *userData),
                           void *userData, const IrCalleeSummary *callees);

/// Frees what memoptIrFunctionBuild allocated.
void memoptIrFunctionDestroy(IrFunction *function);

/// Returns the IrValue of `value`, or MEMOPT_NO_INDEX.
size_t memoptIrFunctionLookupValue(const IrFunction *function, MlirValue value);

/// Returns the IrOp of `op`, or MEMOPT_NO_INDEX.
size_t memoptIrFunctionLookupOp(const IrFunction *function, MlirOperation op);

/// Returns the op at `position` of `block`.
size_t memoptIrBlockOp(const IrFunction *function, size_t block, size_t position);

/// Returns `op` or its ancestor in `block`, or MEMOPT_NO_INDEX when `op` is not nested in `block`.
size_t memoptIrAncestorInBlock(const IrFunction *function, size_t op, size_t block);

/// Returns the IrValue of result `number` of `op`, or MEMOPT_NO_INDEX.
size_t memoptIrResultValue(const IrFunction *function, size_t op, size_t number);

/// Returns true when `name` equals the C string `literal`.
bool memoptNameIs(MlirStringRef name, const char *literal);

/*===------------------------------------------------------------------===*
 * Semantics
 *===------------------------------------------------------------------===*/

/// Classifies every op and fills the semantics of every operand of `function`.
void memoptBufferizationSemanticsCompute(IrFunction *function);

/// Returns true when result `number` of `op` is a new buffer.
bool memoptResultIsAllocation(const IrFunction *function, size_t op, size_t number);

/// Returns true when `value` defines its buffer's contents (One-Shot's memory write; tensor.empty does not).
bool memoptValueIsDefinition(const IrFunction *function, size_t value);

/// Returns true when bufferization may write into `value`'s buffer (not a constant, read-only argument, ...).
bool memoptValueIsWritable(const IrFunction *function, size_t value);

/// Returns true when `op` reads and writes the two operands at the same index only (elementwise access).
bool memoptOpIsElementwiseFor(const IrFunction *function, size_t op, size_t operandA,
                              size_t operandB);

/// Returns true when insert_slice `insertOp` writes back exactly the slice `value` was extracted from.
bool memoptIsMatchingSubset(const IrFunction *function, size_t insertOp, size_t value);

/// Fills `out` (emptied first) with the operands that alias result `number` of `op`.
void memoptAliasingOperands(const IrFunction *function, size_t op, size_t number,
                            IrIndexList *out);

/*===------------------------------------------------------------------===*
 * Buffer layouts
 *===------------------------------------------------------------------===*/

/// The largest rank whose strides are tracked; higher ranks count as unknown.
#define MEMOPT_MAX_TRACKED_RANK 12

/// The strides of a buffer as bufferization types it (memref layout).
typedef struct IrLayout {
  size_t rank;
  bool unknown;     /* rank too high or not strided: every stride dynamic */
  bool identity;    /* the row-major layout of a fresh buffer, even with dynamic sizes */
  int64_t strides[MEMOPT_MAX_TRACKED_RANK]; /* INT64_MIN when dynamic */
  int64_t offset;   /* in elements; INT64_MIN when dynamic */
} IrLayout;

/// Returns the row-major layout of a new buffer of `shapedType`.
IrLayout memoptLayoutIdentity(MlirType shapedType);

/// Returns a layout of `rank` dimensions with all strides dynamic (a function argument's).
IrLayout memoptLayoutDynamic(size_t rank);

/// Returns the layout of a memref type.
IrLayout memoptLayoutOfMemRefType(MlirType memrefType);

/// Returns the layout of the slice (extract_slice, subview) `op` takes of a buffer with `source`.
IrLayout memoptLayoutOfSlice(IrLayout source, MlirOperation op);

/// Returns the layout of expand_shape `op` applied to a buffer with `source`.
IrLayout memoptLayoutOfExpand(IrLayout source, MlirOperation op);

/// Returns the layout after collapse_shape `op`; `collapsible` is false when bufferization must copy first.
IrLayout memoptLayoutOfCollapse(IrLayout source, MlirOperation op, bool *collapsible);

/// Returns true when `layout` casts to `memrefType` without a run-time check (else castOrReallocMemRefValue copies).
bool memoptLayoutCastsTo(IrLayout layout, MlirType memrefType);

/// Returns true when `layout` is a fresh buffer's identity layout (row-major strides alone do not count).
bool memoptLayoutIsIdentity(IrLayout layout, MlirType shapedType);

/*===------------------------------------------------------------------===*
 * In-place analysis
 *===------------------------------------------------------------------===*/

/// Decides like One-Shot Analysis which tensor operands bufferize in place, building alias and equivalence sets.
void memoptInPlaceAnalysisRun(IrFunction *function);

/// Returns the representative of the alias set of `value`.
size_t memoptAliasLeader(IrFunction *function, size_t value);

/// Returns the representative of the equivalence set of `value`.
size_t memoptEquivalenceLeader(IrFunction *function, size_t value);

/// Returns true when the buffer of `value` is read by some use (through views).
bool memoptValueIsRead(const IrFunction *function, size_t value);

/// Returns true when no write defines what `operand` reads (it comes from tensor.empty, maybe through views).
bool memoptOperandHasUndefinedContents(IrFunction *function, size_t operand);

/// Returns true when some in-place write of the alias set of `value` exists.
bool memoptValueIsWritten(IrFunction *function, size_t value);

#endif /* MEMOPT_ANALYSIS_BUFFERIZATIONMODEL_H */
