// The place dialect: device placement of a training step on a cluster of
// accelerators (PHAZE). Region bodies end in `vector.yield`. Each IRDL
// constraint value constrains one slot (a shared value would force equality).
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
  // activations in the backward pass (true) or stashes them (false).
  irdl.operation @stage {
    %output = irdl.any
    %cluster = irdl.base "#builtin.symbol_ref"
    %index = irdl.base "#builtin.integer"
    %devices = irdl.base "#builtin.integer"
    %dataParallel = irdl.base "#builtin.integer"
    %tensorParallel = irdl.base "#builtin.integer"
    %recompute = irdl.base "#builtin.integer"
    %body = irdl.region with size 1
    irdl.results(outputs: variadic %output)
    irdl.attributes {
      "cluster" = %cluster,
      "index" = %index,
      "devices" = %devices,
      "data_parallel" = %dataParallel,
      "tensor_parallel" = %tensorParallel,
      "recompute" = %recompute
    }
    irdl.regions(body: %body)
  }
}
