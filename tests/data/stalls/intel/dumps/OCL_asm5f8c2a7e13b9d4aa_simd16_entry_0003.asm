//.kernel _ZTSZ4mainEUlT_E1_
//.platform XE_HPC
//.thread_config numGRF=128, numAcc=4, numSWSB=16
//.options_string "-emitCrossThreadOffR0Reloc -hasRNEandDenorms -noStitchExternFunc "
//.full_options "-emitLocation -enableCoalesceScalarMoves -hasRNEandDenorms -noStitchExternFunc -linker 63 -preserver0 -abortOnSpill 4 -enableBCR -boundsChecking -presched-rp 100 -nodpsendreorder -SBIDDepLoc -output -binary -dumpcommonisa -dumpvisa -printHexFloatInAsm -noverifyCISA -generateDebugInfo -GTPinReRA -samplerHeaderWA -enableSendIndirectWA -fusedCallWA 1 -LSCFenceWA -insertRSDummyMov"
//.instCount 34
//.RA type	TRIVIAL_BC_RA
//.git-hash 4b1bc0ee2a5c3c8b37a53b7d5a78f5e3c2a46a1d
//.GRF count 41

//.declare BuiltInR0 (0)  rf=r size=64 type=ud align=32 words (r0.0) IsBuiltin
//.declare  (1)  rf=r size=64 type=ud alias=BuiltInR0+0 align=32 words (r0.0) IsBuiltin
//.declare V0033 (43)  rf=r size=8 type=uq align=4 words (r5.0)
//.declare V0034 (44)  rf=r size=64 type=d align=32 words (r6.0)

// .inputs
// +----------+----------+--------+----------+------------------+
// | id       | type     |  bytes | at       | from             |
// +----------+----------+--------+----------+------------------+
// | V0033    | :uq      |    0x8 | r5       | inline+0x0       |
// +----------+----------+--------+----------+------------------+

// B000: Preds:{},  Succs:{B001}
per_thread_prolog:
// File: /home/dev/vadd/vadd.cpp

// Line 21:  auto i = it.get_id(0);
/* [00000000] */         mov (16|M0)              r4.0<1>:ud    r0.1<0;1,0>:ud                   {Compacted} //  ALU pipe: int; $2
/* [00000008] */         mad (16|M0)              r6.0<1>:d     r4.0<1;0>:d       r1.0<1;0>:d       r2.0<0>:d        {I@1} //  ALU pipe: int; $3
/* [00000018] */         shl (16|M0)              r8.0<1>:q     r6.0<1;1,0>:d     2:w               {I@1} //  ALU pipe: int; $4

// Line 22:  float x = a[i];
/* [00000028] */         add (16|M0)              r10.0<1>:q    r8.0<1;1,0>:q     r5.0<0;1,0>:q    {I@1} //  ALU pipe: long; $5
/* [00000038] */         load.ugm.d32x1t.a64 (16|M0)  r12:1      [r10:2]            {A@1,$1} // ex_desc:0x0; desc:0x8200580 // $6

// Line 23:  float y = b[i];
/* [00000048] */         add (16|M0)              r14.0<1>:q    r8.0<1;1,0>:q     r5.1<0;1,0>:q    {Compacted,$1.src} //  ALU pipe: long; $7
/* [00000050] */         load.ugm.d32x1t.a64 (16|M0)  r16:1      [r14:2]            {A@1,$2} // ex_desc:0x0; desc:0x8200580 // $8

// Line 24:  float s = x * y;
/* [00000060] */         mul (16|M0)              r18.0<1>:f    r12.0<1;1,0>:f    r16.0<1;1,0>:f   {$2.dst} //  ALU pipe: float; $9
/* [00000070] */         send.ugm (16|M0)         r20      r10:2  null:0  0x0  0x08200580  {$0} // wr:2+0, rd:1; load.ugm.d32x1t.a64 // $10
/* [00000080] */         mov (16|M0)              r22.0<1>:d    0:w                              {Compacted} //  ALU pipe: int; $11
// B001: [inDivergent],  Preds:{B000, B002},  Succs:{B002, B003}
_0_014:

// Line 26:  for (int k = 0; k < n; k++) {
/* [00000088] */         add (16|M0)              r24.0<1>:f    r18.0<1;1,0>:f    r12.0<1;1,0>:f   {$1.dst} //  ALU pipe: float; $12
/* [00000098] */         cmp (16|M0)   (lt)f0.0   null<1>:d     r22.0<1;1,0>:d    r2.1<0;1,0>:d    {I@1} //  ALU pipe: int; $13
/* [000000A8] */ (~f0.0) goto (16|M0)                         _0_016            _0_016 // $14
// B002: [inDivergent],  Preds:{B001, B002},  Succs:{B001, B002}
_0_015:

// Line 27:  s += c[k] * x;
/* [000000B8] */         sync.allrd                           ($0,$5)                           // $15
/* [000000C8] */         add (16|M0)              r26.0<1>:q    r8.0<1;1,0>:q     r5.2<0;1,0>:q    {Compacted} //  ALU pipe: long; $16
/* [000000D0] */         load.ugm.d32x1t.a64 (16|M0)  r28:1      [r26:2]            {A@1,$5} // ex_desc:0x0; desc:0x8200580 // $17
/* [000000E0] */         mad (16|M0)              r24.0<1>:f    r24.0<1;0>:f      r28.0<1;0>:f      r12.0<1;0>:f     {$5.dst} //  ALU pipe: float; $18
/* [000000F0] */         add (16|M0)              r22.0<1>:d    r22.0<1;1,0>:d    1:w              {Compacted} //  ALU pipe: int; $19
/* [000000F8] */ (f0.0) while (16|M0)                         _0_015                           // $20
// B003: Preds:{B001},  Succs:{B004}
_0_016:

// Line 29:  float t = s + w[i];
/* [00000108] */         add (16|M0)              r32.0<1>:f    r24.0<1;1,0>:f    r20.0<1;1,0>:f   {$0.dst} //  ALU pipe: float; $21
/* [00000118] */         add (16|M0)              r34.0<1>:f    r32.0<1;1,0>:f    r30.0<1;1,0>:f   {$9.dst} //  ALU pipe: float; $22

// Line 30:  out[i] = t;
/* [00000128] */         add (16|M0)              r36.0<1>:q    r8.0<1;1,0>:q     r5.3<0;1,0>:q    {Compacted} //  ALU pipe: long; $23
/* [00000130] */         store.ugm.d32x1t.a64 (16|M0)  [r36:2]   r34:1              {A@1,$3} // ex_desc:0x0; desc:0x8000584 // $24
// B004: Preds:{B003},  Succs:{}
_0_017:

// Line 31:  }).wait();
/* [00000140] */         sync.nop                             null                             {Compacted,$3.src} // $25
/* [00000148] */         mov (16|M0)              r127.0<1>:f   r0.0<1;1,0>:f                    {Compacted} //  ALU pipe: float; $26
/* [00000150] */         send.gtwy (1|M0)         null     r127  null:0  0x0  0x02000010  {EOT,A@1} // wr:1+0, rd:0; end of thread // $27
L888:
/* [00000160] */         nop                                                                     // $28
