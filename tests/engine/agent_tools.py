"""A user's tools for the agent tests: a calculator, as a study would put beside its
config (imported from there as `tools:calculator`)."""

import ast
import operator

from inspect_ai.tool import tool

_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def _value(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_value(node.left), _value(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    raise ValueError("only + - * / on numbers")


@tool
def calculator():
    async def execute(expression: str) -> str:
        """Work out an arithmetic expression.

        Args:
            expression: The expression, e.g. 17 * 23 + 4.
        """
        result = _value(ast.parse(expression, mode="eval").body)
        return str(int(result) if float(result).is_integer() else result)

    return execute
