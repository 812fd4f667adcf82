// The place dialect: device placement of a training step on a cluster of
// accelerators (PHAZE). Region bodies end in `vector.yield`.
irdl.dialect @place {
  // A cluster of identical accelerators, referred to by symbol from stages.
  // Sizes are in bytes, bandwidth in bytes per second.
  irdl.operation @cluster {
    %name = irdl.base "#builtin.string"
    %integer = irdl.base "#builtin.integer"
    irdl.attributes {
      "sym_name" = %name,
      "devices" = %integer,
      "hbm_bytes" = %integer,
      "link_bandwidth" = %integer
    }
  }

  // One pipeline stage: the layers in its body run on `devices` accelerators
  // of `cluster`, split `tensor_parallel` ways within a replica and replicated
  // `data_parallel` ways. `recompute` says whether the stage recomputes its
  // activations in the backward pass (true) or stashes them (false).
  irdl.operation @stage {
    %any = irdl.any
    %integer = irdl.base "#builtin.integer"
    %ref = irdl.base "#builtin.symbol_ref"
    %body = irdl.region with size 1
    irdl.results(outputs: variadic %any)
    irdl.attributes {
      "cluster" = %ref,
      "index" = %integer,
      "devices" = %integer,
      "data_parallel" = %integer,
      "tensor_parallel" = %integer,
      "recompute" = %integer
    }
    irdl.regions(body: %body)
  }
}
