// The spm dialect: scratchpad memory (SPM) placement for DNN accelerators
// (Pin or Fuse). Region bodies end in `vector.yield`. Each IRDL constraint
// value constrains one slot (a shared value would force equal types).
// IRDL in MLIR 22 binds a constraint value to the first type it checks, so a
// variadic group would force all its values to one type. Ops whose operands or
// results differ in type therefore take up to 8 of them through optional
// slots, each with its own constraint; the generic form then carries
// `operandSegmentSizes` / `resultSegmentSizes` (one 0/1 entry per slot).
irdl.dialect @spm {
  // A group of fused layers executed tile by tile: only one tile of each
  // intermediate result is live in the SPM at a time. `tile` holds the tile
  // size of each dimension of the group's outputs.
  irdl.operation @group {
    %out0 = irdl.base "!builtin.tensor"
    %out1 = irdl.base "!builtin.tensor"
    %out2 = irdl.base "!builtin.tensor"
    %out3 = irdl.base "!builtin.tensor"
    %out4 = irdl.base "!builtin.tensor"
    %out5 = irdl.base "!builtin.tensor"
    %out6 = irdl.base "!builtin.tensor"
    %out7 = irdl.base "!builtin.tensor"
    %tile = irdl.base "#builtin.dense_array"
    %body = irdl.region with size 1
    irdl.results(
      output0: optional %out0,
      output1: optional %out1,
      output2: optional %out2,
      output3: optional %out3,
      output4: optional %out4,
      output5: optional %out5,
      output6: optional %out6,
      output7: optional %out7
    )
    irdl.attributes { "tile" = %tile }
    irdl.regions(body: %body)
  }

  // Keeps a tensor resident in the SPM at byte `offset` (occupying `size`
  // bytes) from this point to its last use, so later readers load nothing.
  irdl.operation @pin {
    %source = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    %offset = irdl.base "#builtin.integer"
    %size = irdl.base "#builtin.integer"
    irdl.operands(source: %source)
    irdl.results(result: %result)
    irdl.attributes { "offset" = %offset, "size" = %size }
  }

  // An explicit copy from off-chip memory into the SPM.
  irdl.operation @load {
    %source = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(source: %source)
    irdl.results(result: %result)
  }

  // An explicit copy from the SPM back to off-chip memory.
  irdl.operation @store {
    %source = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(source: %source)
    irdl.results(result: %result)
  }
}
