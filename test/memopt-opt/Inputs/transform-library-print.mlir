module attributes {transform.with_named_sequence} {
  transform.named_sequence @print_functions(%root: !transform.any_op {transform.readonly}) {
    %functions = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.print %functions {name = "library"} : !transform.any_op
    transform.yield
  }
}
