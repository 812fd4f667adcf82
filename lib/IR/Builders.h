/* Creating the upstream ops that memopt's lowerings emit (arith, tensor, scf,
 * cf), in generic form through MLIR's C API, which has no typed builders for
 * them. Each builder creates the op with exactly the inherent attributes the
 * upstream op requires (checked against `mlir-opt --mlir-print-op-generic`)
 * and inserts it at the builder's insertion point.
 *
 * Used by every lowering and by passes that build upstream ops. */
#ifndef MEMOPT_IR_BUILDERS_H
#define MEMOPT_IR_BUILDERS_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

/// Where new ops go: before `before` in `block`, or at the end of `block`
/// when `before` is null. Every new op gets `location`.
typedef struct MemoptBuilder {
  MlirBlock block;
  MlirOperation before;
  MlirLocation location;
} MemoptBuilder;

/// Returns a builder that inserts right before `op`, at the location of `op`.
MemoptBuilder memoptBuilderBefore(MlirOperation op);

/// Returns a builder that appends to the end of `block`, at `location`.
MemoptBuilder memoptBuilderAtEnd(MlirBlock block, MlirLocation location);

/// An index known at compile time (`value` null, `fixed` holds it) or only at
/// run time (`value` holds it, `fixed` is the dynamic-size marker).
typedef struct MemoptIndex {
  int64_t fixed;
  MlirValue value;
} MemoptIndex;

/// Returns an index known at compile time.
MemoptIndex memoptIndexFixed(int64_t fixed);

/// Returns an index known at run time only.
MemoptIndex memoptIndexDynamic(MlirValue value);

/// Returns true when `index` is known at compile time.
bool memoptIndexIsFixed(MemoptIndex index);

/// Creates `arith.constant <value>` of the value's type.
MlirValue memoptBuildConstant(const MemoptBuilder *builder, MlirAttribute value);

/// Creates the binary op `opName` (e.g. "arith.addf") of `lhs` and `rhs`, with a
/// result of `lhs`'s type.
MlirValue memoptBuildBinary(const MemoptBuilder *builder, const char *opName, MlirValue lhs,
                            MlirValue rhs);

/// Creates `arith.constant <value> : index`.
MlirValue memoptBuildIndexConstant(const MemoptBuilder *builder, int64_t value);

/// Creates a binary arith op on two index values, e.g. "arith.subi".
MlirValue memoptBuildIndexArith(const MemoptBuilder *builder, const char *opName, MlirValue lhs,
                                MlirValue rhs);

/// Creates `arith.cmpi sge, lhs, rhs : index`: an i1, true when lhs >= rhs
/// as signed integers.
MlirValue memoptBuildIndexAtLeast(const MemoptBuilder *builder, MlirValue lhs, MlirValue rhs);

/// Creates `cf.assert condition, "message"`: aborts at run time when false.
void memoptBuildAssert(const MemoptBuilder *builder, MlirValue condition, const char *message);

/// Creates `tensor.dim tensor, dim`.
MlirValue memoptBuildTensorDim(const MemoptBuilder *builder, MlirValue tensor, int64_t dim);

/// Creates `tensor.empty(dynamicSizes) : type`, one size per dynamic
/// dimension of `type`, in order.
MlirValue memoptBuildTensorEmpty(const MemoptBuilder *builder, MlirType type,
                                 const MlirValue *dynamicSizes, intptr_t dynamicSizeCount);

/// Returns `value` when it already has `type`, else creates `tensor.cast` to
/// `type` (the two must be cast-compatible).
MlirValue memoptBuildTensorCastIfNeeded(const MemoptBuilder *builder, MlirValue value,
                                        MlirType type);

/// Returns the ranked tensor type `type` with dimension `dim` replaced by
/// `extent` (a size or the dynamic-size marker).
MlirType memoptTensorTypeWithExtent(MlirType type, int64_t dim, int64_t extent);

/// Creates `tensor.extract_slice` of `source` that is whole in every
/// dimension but `dim`, where it starts at `offset` and has `size` elements.
/// Dynamic extents of the other dimensions are read with tensor.dim.
MlirValue memoptBuildExtractSliceAlong(const MemoptBuilder *builder, MlirValue source, int64_t dim,
                                       MlirValue offset, MemoptIndex size);

/// Creates `tensor.insert_slice` of `source` into `dest` at `offset` along
/// `dim` (0 in every other dimension); `size` is the extent of `source` along
/// `dim`, its other extents come from its type. Returns the updated tensor.
MlirValue memoptBuildInsertSliceAlong(const MemoptBuilder *builder, MlirValue source,
                                      MlirValue dest, int64_t dim, MlirValue offset,
                                      MemoptIndex size);

/// Creates `opName` (tensor.extract_slice, or tensor.insert_slice with
/// `leading` = source and dest) at `offsets` and `sizes` (`rank` each, fixed
/// or dynamic) with unit strides; returns its result, of `resultType`.
MlirValue memoptBuildSlice(const MemoptBuilder *builder, const char *opName,
                           const MlirValue *leading, int32_t leadingCount,
                           const MemoptIndex *offsets, const MemoptIndex *sizes, intptr_t rank,
                           MlirType resultType);

/// Returns the value of `index`: its own, or an arith.constant built for it.
MlirValue memoptIndexValue(const MemoptBuilder *builder, MemoptIndex index);

/// Returns offset (`which` 0), size (1) or stride (2) `d` of a
/// tensor.extract_slice or insert_slice, fixed or its dynamic operand.
MemoptIndex memoptSliceIndex(MlirOperation slice, int which, intptr_t d);

/// Creates `scf.for %iv = lower to upper step step iter_args(inits)` with an
/// empty body block (arguments: the index, then one per init). The caller
/// fills the block and ends it with memoptBuildYield(..., "scf.yield", ...).
MlirOperation memoptBuildFor(const MemoptBuilder *builder, MlirValue lower, MlirValue upper,
                             MlirValue step, const MlirValue *inits, intptr_t initCount);

/// Replaces the scf.for `loop` by one that also carries `init` (the new
/// block argument and result come last) and returns it; the caller appends
/// the value to carry on to its terminator (memoptTerminatorAppendOperand).
MlirOperation memoptForAppendIterArg(MlirOperation loop, MlirValue init);

/// Appends `value` to the operands of `terminator` (an scf.yield).
void memoptTerminatorAppendOperand(MlirOperation terminator, MlirValue value);

/// Returns the body block of an op with one single-block region (scf.for).
MlirBlock memoptSingleBlock(MlirOperation op);

/// Creates the terminator `opName` (e.g. "scf.yield") with `values`.
void memoptBuildYield(const MemoptBuilder *builder, const char *opName, const MlirValue *values,
                      intptr_t count);

/// Detaches `op` from its block and destroys it; its results must be unused.
void memoptEraseOp(MlirOperation op);

/// Returns the attribute `name` = `attribute`.
MlirNamedAttribute memoptNamedAttribute(MlirContext context, const char *name,
                                        MlirAttribute attribute);

/// Creates the op `state` describes at the builder's point; aborts when the
/// state does not match the op's definition (a bug in the caller).
MlirOperation memoptInsertOp(const MemoptBuilder *builder, MlirOperationState *state);

/// Creates at the builder's point an all-parallel linalg.generic of `loops`
/// loops reading `inputs` and writing `init` through `maps` (`inputCount` + 1
/// affine map attributes, the init's last). Its payload block, one argument
/// per operand of that operand's element type, is empty: `payload` gets a
/// builder at its end, where the caller builds the payload and its
/// linalg.yield. Returns the op.
MlirOperation memoptBuildParallelGeneric(const MemoptBuilder *builder, const MlirValue *inputs,
                                         intptr_t inputCount, MlirValue init,
                                         const MlirAttribute *maps, intptr_t loops,
                                         MemoptBuilder *payload);

/// Creates the named linalg op `name` (linalg.fill, linalg.copy) reading
/// `source` into the init `destination` at the builder's point, with the body
/// its name implies; returns its result.
MlirValue memoptBuildLinalgNamedUnary(const MemoptBuilder *builder, const char *name,
                                      MlirValue source, MlirValue destination);

/// Creates op `opName` with `operands`, one result of `resultType` and
/// `attributes` (no regions) at the builder's point; returns the result.
MlirValue memoptBuildOneResult(const MemoptBuilder *builder, const char *opName,
                               const MlirValue *operands, intptr_t operandCount,
                               MlirType resultType, const MlirNamedAttribute *attributes,
                               intptr_t attributeCount);

/// Creates op `opName` in generic form with the given operands, result types
/// and attributes (no regions) at the builder's point.
MlirOperation memoptBuildOp(const MemoptBuilder *builder, const char *opName,
                            const MlirValue *operands, intptr_t operandCount,
                            const MlirType *resultTypes, intptr_t resultCount,
                            const MlirNamedAttribute *attributes, intptr_t attributeCount);

#endif /* MEMOPT_IR_BUILDERS_H */
