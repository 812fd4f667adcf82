# lit configuration for the memopt test suite.
import os

import lit.formats

config.name = "memopt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.memopt_obj_root, "test")

# memopt's tools first, then LLVM's (FileCheck, not, mlir-opt, mlir-runner),
# then the scripts in utils/.
config.environment["PATH"] = os.pathsep.join(
    [config.memopt_tools_dir, config.llvm_tools_dir,
     os.path.join(config.memopt_src_root, "utils"), config.environment.get("PATH", "")])

config.substitutions.append(("%memopt_src", config.memopt_src_root))
config.substitutions.append(("%memopt_irdl", config.memopt_combined_irdl))
config.substitutions.append(("%models", config.memopt_models_dir))
config.substitutions.append(("%mlir_lib_dir", config.llvm_lib_dir))
config.substitutions.append(("%memopt_lib_dir", config.memopt_lib_dir))
config.substitutions.append(("%memopt_rt", os.path.join(config.memopt_lib_dir, "libmemopt_rt.so")))
config.substitutions.append(("%shlibext", ".so"))

# Tests that make device nodes (mknod) run only as root.
if os.geteuid() == 0:
    config.available_features.add("root")

if os.path.isdir(config.memopt_models_dir):
    config.available_features.add("models")

if config.memopt_sanitize:
    config.available_features.add("asan")
    # Leak checking on, with no suppressions: memopt-opt leaks nothing, and
    # LLVM's own one-time allocations are still reachable at exit.
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
