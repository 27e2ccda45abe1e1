# Compares a PyTorch continuation with webddp's final parameters (rtol 1e-4, atol 1e-5).
import sys, numpy as np
sys.path.insert(0, sys.argv[3] if len(sys.argv) > 3 else "p1")  # a folder with the exported webddp_safetensors.py
import webddp_safetensors as st
got, want = st.load(sys.argv[1])[0], st.load(sys.argv[2])[0]
ok = True
for k in sorted(want):
    a, b = got[k].double().numpy(), want[k].double().numpy()
    bad = int((np.abs(a - b) > 1e-5 + 1e-4 * np.abs(b)).sum())
    ok &= bad == 0
    print(f"{k:14s} max abs {np.abs(a - b).max():.2e}  {bad}/{b.size} out of tolerance")
print("MATCH" if ok else "MISMATCH")
