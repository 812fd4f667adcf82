// The chunk dialect: activation chunking (AutoChunk).
//
// Region bodies end in `vector.yield` (see python-free-docs/dialects.md: IRDL
// ops carry no traits, so they cannot own a terminator of their own, and
// vector.yield is a pure, return-like terminator with no parent constraint).
irdl.dialect @chunk {
  // Computes its results chunk by chunk along one dimension. Every operand is
  // sliced along its entry of `input_dims`; the body sees one slice per block
  // argument and yields one slice per result, which is inserted along the
  // result's entry of `output_dims`. `chunk_size` elements are processed per
  // iteration (the last chunk may be smaller). Values used in the body but
  // defined above are read whole on every iteration.
  irdl.operation @region {
    %tensor = irdl.base "!builtin.tensor"
    %integer = irdl.base "#builtin.integer"
    %dims = irdl.base "#builtin.dense_array"
    %body = irdl.region with size 1
    irdl.operands(inputs: variadic %tensor)
    irdl.results(outputs: variadic %tensor)
    irdl.attributes {
      "input_dims" = %dims,
      "output_dims" = %dims,
      "chunk_size" = %integer
    }
    irdl.regions(body: %body)
  }
}
