//.kernel GEMM
//.platform XE_HPC
//.thread_config numGRF=256, numAcc=8, numSWSB=16
//.options_string "-cl-kernel-arg-info "
//.full_options "-emitLocation -enableCoalesceScalarMoves -hasRNEandDenorms -TotalGRFNum 256 -output -binary"
//.instCount 12
//.RA type	GRAPH_COLORING_FF_RA
//.git-hash 4b1bc0ee2a5c3c8b37a53b7d5a78f5e3c2a46a1d

//.declare BuiltInR0 (0)  rf=r size=64 type=ud align=32 words (r0.0) IsBuiltin
//.declare V0040 (50)  rf=r size=512 type=f align=32 words (r20.0)

        mov (16|M0)              r2.0<1>:ud    r0.1<0;1,0>:ud                   {Compacted} // $1
        shl (16|M0)              r4.0<1>:d     r2.0<1;1,0>:d     6:w               {I@1} // $2
        add (16|M0)              r6.0<1>:q     r4.0<1;1,0>:d     r5.0<0;1,0>:q    {I@1} // $3
        load.ugm.d32x16t.a64 (1|M0)  r10:1      [r6:1]             {A@1,$4} // ex_desc:0x0; desc:0x8A00580 // $4
        load.ugm.d32x16t.a64 (1|M0)  r12:1      [r7:1]             {$6} // ex_desc:0x0; desc:0x8A00580 // $5
        sync.nop                             null                             {Compacted,$4.dst} // $6
        dpas.8x8 (16|M0)         r20:f         r20:f             r10:bf            r12.0:bf         {Atomic,$6.dst} // $7
        dpas.8x8 (16|M0)         r28:f         r28:f             r10:bf            r12.0:bf         {$7} // $8
        add (16|M0)              r40.0<1>:f    r20.0<1;1,0>:f    r28.0<1;1,0>:f   {$7.dst} // $9
        store.ugm.d32x16t.a64 (1|M0)  [r6:1]    r40:1              {A@1,$8} // ex_desc:0x0; desc:0x8A00584 // $10
        mov (16|M0)              r127.0<1>:f   r0.0<1;1,0>:f                    {Compacted} // $11
        send.gtwy (1|M0)         null     r127  null:0  0x0  0x02000010  {EOT,A@1} // wr:1+0, rd:0; end of thread // $12
