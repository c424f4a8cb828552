"""nbgrad.compile: a whole step captured once as a named graph and run as generated code.

capture.py  records every backend call of one eager call (the graph), and refuses what
            cannot be captured (CompileError)
state.py    finds what a step can see and change besides its arguments (parameters, .grad,
            optimizer state, module flags) and guards it
codegen.py  passes (dead code, common subexpressions, constant folding, elementwise fusion,
            a memory plan) and the generated module, cached on disk
graph.py    the named graph users print (`step.graph`, `to_dot()`)
function.py the compiled function: variants, guards, the state effects of a compiled call
"""
from .capture import CompileError
from .function import CompiledFunction, compile

__all__ = ["CompileError", "CompiledFunction", "compile"]
