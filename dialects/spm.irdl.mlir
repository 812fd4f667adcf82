// The spm dialect: scratchpad memory (SPM) placement for DNN accelerators
// (Pin or Fuse). Region bodies end in `vector.yield`. Each IRDL constraint
// value constrains one slot (a shared value would force equal types).
irdl.dialect @spm {
  // A group of fused layers executed tile by tile: only one tile of each
  // intermediate result is live in the SPM at a time. `tile` holds the tile
  // size of each dimension of the group's outputs.
  irdl.operation @group {
    %output = irdl.base "!builtin.tensor"
    %tile = irdl.base "#builtin.dense_array"
    %body = irdl.region with size 1
    irdl.results(outputs: variadic %output)
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
