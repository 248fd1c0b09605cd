//.kernel _ZTSZ4mainEUlT_E5_
//.platform XE_HPC

/* [00000000] */         nop                                  // $1
