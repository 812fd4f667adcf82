// The spm dialect: scratchpad memory (SPM) placement for DNN accelerators
// (Pin or Fuse). Region bodies end in `vector.yield`.
irdl.dialect @spm {
  // A group of fused layers executed tile by tile: only one tile of each
  // intermediate result is live in the SPM at a time. `tile` holds the tile
  // size of each dimension of the group's outputs.
  irdl.operation @group {
    %tensor = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    %body = irdl.region with size 1
    irdl.results(outputs: variadic %tensor)
    irdl.attributes { "tile" = %dims }
    irdl.regions(body: %body)
  }

  // Keeps a tensor resident in the SPM at byte `offset` (occupying `size`
  // bytes) from this point to its last use, so later readers load nothing.
  irdl.operation @pin {
    %tensor = irdl.base "!builtin.tensor"
    %integer = irdl.base "#builtin.integer"
    irdl.operands(source: %tensor)
    irdl.results(result: %tensor)
    irdl.attributes { "offset" = %integer, "size" = %integer }
  }

  // An explicit copy from off-chip memory into the SPM.
  irdl.operation @load {
    %tensor = irdl.base "!builtin.tensor"
    irdl.operands(source: %tensor)
    irdl.results(result: %tensor)
  }

  // An explicit copy from the SPM back to off-chip memory.
  irdl.operation @store {
    %tensor = irdl.base "!builtin.tensor"
    irdl.operands(source: %tensor)
    irdl.results(result: %tensor)
  }
}
