// Being written (issue 4's benchmark).
print("lector-policy-bench")
