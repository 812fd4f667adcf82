// The chunk dialect: activation chunking (AutoChunk).
//
// Region bodies end in `vector.yield` (python-free-docs/dialects.md: IRDL ops
// carry no traits, so they cannot own a terminator of their own, and
// vector.yield is a pure, return-like terminator with no parent constraint).
// IRDL in MLIR 22 binds a constraint value to the first type it checks, so a
// variadic group would force all its values to one type. Ops whose operands or
// results differ in type therefore take up to 8 of them through optional
// slots, each with its own constraint; the generic form then carries
// `operandSegmentSizes` / `resultSegmentSizes` (one 0/1 entry per slot).
irdl.dialect @chunk {
  // Computes its results chunk by chunk along one dimension. Every operand is
  // sliced along its entry of `input_dims`; the body sees one slice per block
  // argument (then, optionally, an `index` argument: the offset of the chunk
  // along the chunked dimension, for bodies that read loop indices) and
  // yields one slice per result, which is inserted along the result's entry
  // of `output_dims`. `chunk_size` elements are processed per iteration (the
  // last chunk may be smaller). Values used in the body but defined above are
  // read whole on every iteration.
  //
  // Optional, and so not listed in irdl.attributes (IRDL in MLIR 22 has no
  // optional attributes; lib/IR/Verify.c checks them): `combiners`, an array
  // of strings, one per result ("concat", "add", "max", "rescaled-add";
  // absent: all "concat"), and `rescale_by`, array<i64> naming for each
  // "rescaled-add" result its "max" result (-1 elsewhere). A result combined
  // other than by "concat" has output_dims entry -1 and the body yields a
  // value of its whole type, which is combined across chunks
  // (python-free-docs/dialects.md, "chunk").
  irdl.operation @region {
    %in0 = irdl.base "!builtin.tensor"
    %in1 = irdl.base "!builtin.tensor"
    %in2 = irdl.base "!builtin.tensor"
    %in3 = irdl.base "!builtin.tensor"
    %in4 = irdl.base "!builtin.tensor"
    %in5 = irdl.base "!builtin.tensor"
    %in6 = irdl.base "!builtin.tensor"
    %in7 = irdl.base "!builtin.tensor"
    %out0 = irdl.base "!builtin.tensor"
    %out1 = irdl.base "!builtin.tensor"
    %out2 = irdl.base "!builtin.tensor"
    %out3 = irdl.base "!builtin.tensor"
    %out4 = irdl.base "!builtin.tensor"
    %out5 = irdl.base "!builtin.tensor"
    %out6 = irdl.base "!builtin.tensor"
    %out7 = irdl.base "!builtin.tensor"
    %inputDims = irdl.base "#builtin.dense_array"
    %outputDims = irdl.base "#builtin.dense_array"
    %chunkSize = irdl.base "#builtin.integer"
    %body = irdl.region with size 1
    irdl.operands(
      input0: optional %in0,
      input1: optional %in1,
      input2: optional %in2,
      input3: optional %in3,
      input4: optional %in4,
      input5: optional %in5,
      input6: optional %in6,
      input7: optional %in7
    )
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
      "input_dims" = %inputDims,
      "output_dims" = %outputDims,
      "chunk_size" = %chunkSize
    }
    irdl.regions(body: %body)
  }
}
