//.kernel _ZTSZ4mainEUlT_E2_
//.platform XE2
//.thread_config numGRF=128, numAcc=4, numSWSB=32
//.instCount 5

// B000: Preds:{},  Succs:{}
// File: /home/dev/vadd/vadd.cpp

// Line 41:  y[i] = alpha * x[i] + y[i];
/* [00000000] */         load.ugm.d32x1t.a64 (32|M0)  r10:2      [r4:4]             {$2} // $1
/* [00000010] */         load.ugm.d32x1t.a64 (32|M0)  r12:2      [r6:4]             {$3} // $2
/* [00000020] */         mad (32|M0)              r14.0<1>:f    r12.0<1;0>:f      r10.0<1;0>:f      r2.0<0>:f        {$3.dst} // $3
/* [00000030] */         store.ugm.d32x1t.a64 (32|M0)  [r6:4]    r14:2              {A@1,$4} // $4
/* [00000040] */         send.gtwy (1|M0)         null     r127  null:0  0x0  0x02000010  {EOT,A@1} // $5
