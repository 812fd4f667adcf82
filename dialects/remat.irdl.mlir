// The remat dialect: rematerialization and symbolic sizes for dynamic shapes
// (BladeDISC++). Region bodies end in `vector.yield`.
irdl.dialect @remat {
  // From this point until a matching remat.regenerate, the buffer of `value`
  // may be evicted when memory runs short (decided at run time).
  irdl.operation @evict {
    %tensor = irdl.base "!builtin.tensor"
    irdl.operands(value: %tensor)
  }

  // Yields `value` for its later uses: the buffer itself when it is still
  // resident, else the result of recomputing it with the body.
  irdl.operation @regenerate {
    %tensor = irdl.base "!builtin.tensor"
    %body = irdl.region with size 1
    irdl.operands(value: %tensor)
    irdl.results(result: %tensor)
    irdl.regions(recompute: %body)
  }

  // States that dimension `dim` of `value` has the symbolic size `symbol`:
  // dimensions bound to the same symbol are equal at run time.
  irdl.operation @dim_symbol {
    %tensor = irdl.base "!builtin.tensor"
    %memref = irdl.base "!builtin.memref"
    %shaped = irdl.any_of(%tensor, %memref)
    %integer = irdl.base "#builtin.integer"
    %name = irdl.base "#builtin.string"
    irdl.operands(value: %shaped)
    irdl.attributes { "dim" = %integer, "symbol" = %name }
  }
}
