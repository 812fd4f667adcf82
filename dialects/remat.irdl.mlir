// The remat dialect: rematerialization and symbolic sizes for dynamic shapes
// (BladeDISC++). Region bodies end in `vector.yield`. Each IRDL constraint
// value constrains one slot (a shared value would force equal types).
irdl.dialect @remat {
  // From this point until a matching remat.regenerate, the buffer of `value`
  // may be evicted when memory runs short (decided at run time). In a
  // regenerate's body it takes effect when that body has run, until the next
  // regenerate of `value` in the function body. The optional `restore_bytes`
  // (an index) is how many bytes, at least, are resident while that
  // regenerate runs, the buffer itself included: the runtime prefers
  // evicting buffers whose restoration fits its limit.
  irdl.operation @evict {
    %value = irdl.base "!builtin.tensor"
    %restoreBytes = irdl.is index
    irdl.operands(value: %value, restore_bytes: optional %restoreBytes)
  }

  // Yields `value` for its later uses: the buffer itself when it is still
  // resident, else the result of recomputing it with the body. The body may
  // read an input that may be evicted itself through a nested regenerate
  // (and mark it evictable again with a nested evict).
  irdl.operation @regenerate {
    %value = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    %body = irdl.region with size 1
    irdl.operands(value: %value)
    irdl.results(result: %result)
    irdl.regions(recompute: %body)
  }

  // States that dimension `dim` of `value` has the symbolic size `symbol`:
  // dimensions bound to the same symbol are equal at run time.
  irdl.operation @dim_symbol {
    %tensor = irdl.base "!builtin.tensor"
    %memref = irdl.base "!builtin.memref"
    %value = irdl.any_of(%tensor, %memref)
    %dim = irdl.base "#builtin.integer"
    %symbol = irdl.base "#builtin.string"
    irdl.operands(value: %value)
    irdl.attributes { "dim" = %dim, "symbol" = %symbol }
  }
}
