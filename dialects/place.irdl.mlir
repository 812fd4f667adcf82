// The place dialect: device placement of a training step on a cluster of
// accelerators (PHAZE). Region bodies end in `vector.yield`. Each IRDL
// constraint value constrains one slot (a shared value would force equality).
// IRDL in MLIR 22 binds a constraint value to the first type it checks, so a
// variadic group would force all its values to one type. Ops whose operands or
// results differ in type therefore take up to 8 of them through optional
// slots, each with its own constraint; the generic form then carries
// `operandSegmentSizes` / `resultSegmentSizes` (one 0/1 entry per slot).
irdl.dialect @place {
  // A cluster of identical accelerators, referred to by symbol from stages.
  // Sizes are in bytes, bandwidth in bytes per second.
  irdl.operation @cluster {
    %name = irdl.base "#builtin.string"
    %devices = irdl.base "#builtin.integer"
    %hbm = irdl.base "#builtin.integer"
    %bandwidth = irdl.base "#builtin.integer"
    irdl.attributes {
      "sym_name" = %name,
      "devices" = %devices,
      "hbm_bytes" = %hbm,
      "link_bandwidth" = %bandwidth
    }
  }

  // One pipeline stage: the layers in its body run on `devices` accelerators
  // of `cluster`, split `tensor_parallel` ways within a replica and replicated
  // `data_parallel` ways. `recompute` says whether the stage recomputes its
  // activations in the backward pass (true) or stashes them (false). The stage
  // runs layers [first_layer, first_layer + layers) of the model: the body holds
  // their ops when the function materializes them, and is empty when the
  // model is described by one layer and a layer count (place-search{layers=N}).
  irdl.operation @stage {
    %out0 = irdl.any
    %out1 = irdl.any
    %out2 = irdl.any
    %out3 = irdl.any
    %out4 = irdl.any
    %out5 = irdl.any
    %out6 = irdl.any
    %out7 = irdl.any
    %cluster = irdl.base "#builtin.symbol_ref"
    %index = irdl.base "#builtin.integer"
    %devices = irdl.base "#builtin.integer"
    %dataParallel = irdl.base "#builtin.integer"
    %tensorParallel = irdl.base "#builtin.integer"
    %recompute = irdl.base "#builtin.integer"
    %firstLayer = irdl.base "#builtin.integer"
    %layers = irdl.base "#builtin.integer"
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
    irdl.attributes {
      "cluster" = %cluster,
      "index" = %index,
      "devices" = %devices,
      "data_parallel" = %dataParallel,
      "tensor_parallel" = %tensorParallel,
      "recompute" = %recompute,
      "first_layer" = %firstLayer,
      "layers" = %layers
    }
    irdl.regions(body: %body)
  }
}
