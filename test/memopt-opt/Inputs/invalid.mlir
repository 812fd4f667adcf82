func.func @invalid(%x: i32) {
  return %x : i32
}
