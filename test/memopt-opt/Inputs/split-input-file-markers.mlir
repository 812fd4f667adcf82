func.func @one() { return }

// -----
func.func @two() { return } // -----
func.func @three() { return }
// ----
func.func @four() { return }

// -----

func.func @five() { %c = arith.constant 1 : i64 } // -----
