; ModuleID = not an asm file
//.kernel GEMM
