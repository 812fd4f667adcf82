// The chunk dialect: activation chunking (AutoChunk).
//
// Region bodies end in `vector.yield` (python-free-docs/dialects.md: IRDL ops
// carry no traits, so they cannot own a terminator of their own, and
// vector.yield is a pure, return-like terminator with no parent constraint).
// Each IRDL constraint value below constrains one slot only: a value used
// twice would force both slots to hold the same type or attribute.
irdl.dialect @chunk {
  // Computes its results chunk by chunk along one dimension. Every operand is
  // sliced along its entry of `input_dims`; the body sees one slice per block
  // argument and yields one slice per result, which is inserted along the
  // result's entry of `output_dims`. `chunk_size` elements are processed per
  // iteration (the last chunk may be smaller). Values used in the body but
  // defined above are read whole on every iteration.
  irdl.operation @region {
    %input = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %inputDims = irdl.base "#builtin.dense_array"
    %outputDims = irdl.base "#builtin.dense_array"
    %chunkSize = irdl.base "#builtin.integer"
    %body = irdl.region with size 1
    irdl.operands(inputs: variadic %input)
    irdl.results(outputs: variadic %output)
    irdl.attributes {
      "input_dims" = %inputDims,
      "output_dims" = %outputDims,
      "chunk_size" = %chunkSize
    }
    irdl.regions(body: %body)
  }
}
