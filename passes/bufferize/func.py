"""Bufferization of one ``func.func`` body: the tensor-to-memref rewrite proper.

Every tensor value of the body is given a :class:`Buffer`: a memref value and
the :class:`Root` allocation it lives in (views share their source's root).
Ops are rewritten in program order, nested blocks (``scf.if``/``scf.while``
regions, see ``bufferize/control.py``) when their op is reached; the new
buffer-level ops are inserted before the tensor op they replace, and the tensor
ops are erased at the end, so the analyses keep seeing the original program
while it is rewritten.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith, func, memref, scf, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
    UnknownLoc,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.passes.bufferize import builders as build
from kiln.passes.bufferize.analysis import BlockOrder, out_param_destinations
from kiln.passes.bufferize import control, effects
from kiln.passes.bufferize.buffers import Buffer, Root, RootKind
from kiln.passes.bufferize.shapes import ResultShapes


def is_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType)


def _needs_rewrite(value: SSAValue) -> bool:
    return isinstance(value.type, (TensorType, graph.TokenType, graph.ResourceType))


def touches_tensors(op: Operation) -> bool:
    """True if ``op`` or an op nested in it has a tensor, token or resource operand or result."""
    return any(
        _needs_rewrite(v) for nested in op.walk() for v in (*nested.operands, *nested.results)
    )


def _buffer_type(t: Attribute) -> Attribute:
    """What a function parameter of type ``t`` becomes: tensors and resources are memrefs."""
    if isinstance(t, graph.ResourceType):
        return build.memref_type_of(t.value_type)
    return build.memref_type_of(t) if isinstance(t, TensorType) else t


def convert_signature(fn: func.FuncOp) -> None:
    """Tensor inputs become memrefs; tensor results become trailing memref out-parameters.

    Result attributes of tensor results move to their out-parameters.
    """
    function_type = fn.function_type
    inputs = [_buffer_type(t) for t in function_type.inputs]
    is_out = [isinstance(t, TensorType) for t in function_type.outputs]
    outs = [build.memref_type_of(t) for t in function_type.outputs if isinstance(t, TensorType)]
    results = [t for t in function_type.outputs if not isinstance(t, TensorType)]
    fn.function_type = FunctionType.from_lists([*inputs, *outs], results)
    if fn.res_attrs is None and fn.arg_attrs is None:
        return
    no_attrs = DictionaryAttr({})
    arg_attrs = list(fn.arg_attrs.data) if fn.arg_attrs else [no_attrs] * len(inputs)
    res_attrs = list(fn.res_attrs.data) if fn.res_attrs else [no_attrs] * len(is_out)
    arg_attrs += [a for a, out in zip(res_attrs, is_out, strict=True) if out]
    fn.arg_attrs = ArrayAttr(arg_attrs)
    fn.res_attrs = ArrayAttr([a for a, out in zip(res_attrs, is_out, strict=True) if not out])


class ConstantPool:
    """Dense tensor constants as module-level ``memref.global``s, one per distinct value."""

    def __init__(self, module_block: Block) -> None:
        self.block = module_block
        self.names: dict[Attribute, str] = {}
        self.taken = {
            op.properties["sym_name"].data  # pyright: ignore[reportAttributeAccessIssue]
            for op in module_block.ops
            if "sym_name" in op.properties
        }

    def symbol_for(self, value: DenseIntOrFPElementsAttr[Any], location: Attribute) -> str:
        if value in self.names:
            return self.names[value]
        name = f"__kiln_constant_{len(self.names)}"
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        self.names[value] = name
        tensor_type = value.type
        assert isinstance(tensor_type, TensorType)
        global_op = memref.GlobalOp.get(
            StringAttr(name), build.memref_type_of(tensor_type), value, constant=UnitAttr()
        )
        global_op.location = location
        Rewriter.insert_op(global_op, InsertPoint.at_start(self.block))
        return name


def _same_slice(value: SSAValue, insert: tensor.InsertSliceOp, chain: list[tensor.ExpandShapeOp]) -> bool:
    """Is ``value`` the slice of ``insert``'s destination that ``insert`` writes, reshaped as the
    inserted value was (``chain``, undone by ``collapse_shape``s with the same groups)?"""
    for reshape in reversed(chain):
        if not (isinstance(value, OpResult) and isinstance(value.op, tensor.CollapseShapeOp)
                and value.op.reassociation == reshape.reassociation):
            return False
        value = value.op.src
    if not (isinstance(value, OpResult) and isinstance(value.op, tensor.ExtractSliceOp)):
        return False
    extract = value.op
    return (extract.source is insert.dest and list(extract.offsets) == list(insert.offsets)
            and list(extract.sizes) == list(insert.sizes) and list(extract.strides) == list(insert.strides)
            and extract.static_offsets == insert.static_offsets and extract.static_sizes == insert.static_sizes
            and extract.static_strides == insert.static_strides)


class FunctionBufferizer:
    """Rewrites one function body (signature included) into destination-passing style."""

    def __init__(self, fn: func.FuncOp, pool: ConstantPool,
                 originals: dict[str, func.FuncOp]) -> None:
        self.fn = fn
        self.pool = pool
        self.originals = originals
        self.block = fn.body.block
        self.orders: dict[Block, BlockOrder] = {}
        self.erased: list[Operation] = []
        self.dead_args: list[tuple[Block, list[int]]] = []
        self.buffers: dict[SSAValue, Buffer] = {}
        #: buffers this function owns and frees after their last use (allocs, and buffers
        #: scf ops hand over from their regions)
        self.temporaries: list[SSAValue] = []
        self.variables: dict[SSAValue, Root] = {}
        self.out_params: list[Buffer] = []
        #: the loop bodies in which each carried buffer may be written in place (see may_overwrite)
        self.loop_bodies: dict[Root, set[Block]] = {}
        self.current: Operation | None = None
        #: insert_slice ops whose source a linalg op already computed in place (_slice_destination)
        self.placed: set[tensor.InsertSliceOp] = set()
        ret = self.block.last_op
        assert isinstance(ret, func.ReturnOp)
        self.dest = out_param_destinations(self.block, ret)
        self.handlers: dict[type[Operation], Callable[[Any], None]] = {
            tensor.EmptyOp: self._empty,
            tensor.DimOp: self._dim,
            tensor.ExtractOp: self._extract,
            tensor.ExtractSliceOp: self._extract_slice,
            tensor.CollapseShapeOp: self._reshape,
            tensor.ExpandShapeOp: self._reshape,
            tensor.CastOp: self._cast,
            arith.ConstantOp: self._constant,
            func.CallOp: self._call,
            func.ReturnOp: self._return,
            tensor.InsertSliceOp: self._insert_slice,
            scf.IfOp: lambda op: control.bufferize_if(self, op),
            scf.WhileOp: lambda op: control.bufferize_while(self, op),
            graph.TokenOp: lambda op: None,
            graph.ReadOp: lambda op: effects.bufferize_read(self, op),
            graph.AssignOp: lambda op: effects.bufferize_assign(self, op),
            graph.PrintOp: lambda op: effects.bufferize_print(self, op),
            graph.CheckOp: lambda op: effects.bufferize_check(self, op),
        }

    # -- driver ---------------------------------------------------------------

    def run(self) -> list[SSAValue]:
        """Rewrite the body; return the temporaries, still to be freed."""
        self._convert_arguments()
        self.convert_block(self.block)
        for op in reversed(self.erased):
            Rewriter.erase_op(op)
        for block, indices in self.dead_args:
            for index in sorted(indices, reverse=True):
                block.erase_arg(block.args[index])
        convert_signature(self.fn)
        return self.temporaries

    def convert_block(self, block: Block) -> None:
        """Rewrite the ops of ``block``; an ``scf`` terminator is left to its parent's handler."""
        self.orders[block] = BlockOrder(block)
        for op in [op for op in block.ops if self._touches(op)]:
            if isinstance(op, (scf.YieldOp, scf.ConditionOp)):
                continue
            self.current = op
            self._convert(op)
            self.erased.append(op)

    def _touches(self, op: Operation) -> bool:
        """Does ``op`` involve a tensor, token or resource (arguments are already memrefs)?"""
        return touches_tensors(op) or any(
            v in self.buffers or v in self.variables for nested in op.walk() for v in nested.operands
        )

    def order_of(self, op: Operation) -> BlockOrder:
        block = op.parent_block()
        assert block is not None
        return self.orders[block]

    def _convert(self, op: Operation) -> None:
        if isinstance(op, LinalgStructuredOperation):
            return self._linalg(op)
        handler = self.handlers.get(type(op))
        if handler is None:
            where = "" if isinstance(op.location, UnknownLoc) else f" at {op.location}"
            raise DiagnosticException(f"kiln-bufferize: unsupported op '{op.name}' on tensors{where}")
        handler(op)

    def emit(self, op: Operation) -> Operation:
        """Insert ``op`` before the tensor op being rewritten, with that op's location."""
        assert self.current is not None
        build.with_location(op, self.current.location)
        Rewriter.insert_op(op, InsertPoint.before(self.current))
        return op

    def emit_all(self, ops: list[Operation]) -> Operation:
        for op in ops:
            self.emit(op)
        return ops[-1]

    def holds_tensor(self, value: SSAValue) -> bool:
        """Tensor-valued in the original program (arguments are already retyped)."""
        return value in self.buffers or is_tensor(value)

    def bind(self, value: SSAValue, memref_value: SSAValue, root: Root) -> None:
        self.buffers[value] = Buffer(memref_value, root)
        root.aliases.append(value)

    def temporary(self, alloc_ops: list[Operation]) -> Root:
        alloc = self.emit_all(alloc_ops)
        assert isinstance(alloc, memref.AllocOp)
        self.temporaries.append(alloc.memref)
        return Root(RootKind.TEMPORARY, alloc.memref, block=alloc.parent_block())

    def _contiguous(self, value: SSAValue) -> Buffer:
        """The buffer of ``value``, copied into a temporary if it is a strided view."""
        buffer = self.buffers[value]
        if build.is_contiguous(buffer.value):
            return buffer
        root = self.temporary(build.alloc_like(buffer.value))
        self.emit(build.copy(buffer.value, root.value))
        return Buffer(root.value, root)

    # -- signature ------------------------------------------------------------

    def _convert_arguments(self) -> None:
        for arg in list(self.block.args):
            if isinstance(arg.type, TensorType):
                new = Rewriter.replace_value_with_new_type(arg, build.memref_type_of(arg.type))
                self.bind(new, new, Root(RootKind.ARGUMENT, new))
            elif isinstance(arg.type, graph.ResourceType):
                new = Rewriter.replace_value_with_new_type(arg, _buffer_type(arg.type))
                self.variables[new] = Root(RootKind.VARIABLE, new)
        for t in self.fn.function_type.outputs:
            if isinstance(t, TensorType):
                arg = self.block.insert_arg(build.memref_type_of(t), len(self.block.args))
                arg.name_hint = "out"
                self.out_params.append(Buffer(arg, Root(RootKind.OUT_PARAM, arg)))

    # -- in-place decisions ---------------------------------------------------

    def _writable_in_place(self, op: LinalgStructuredOperation, out_index: int) -> bool:
        """May ``op`` overwrite the buffer of its ``outs[out_index]``?

        Only a whole temporary whose every alias is dead after ``op``; ``op`` may
        itself read the same value elementwise at the same index (parallel loops,
        same indexing map), never through another view or another output.
        """
        init = op.outputs[out_index]
        if not self.may_overwrite(init, op):
            return False
        root = self.buffers[init].root
        maps = op.get_indexing_maps().data
        parallel = all(t.data is IteratorType.PARALLEL for t in op.get_iterator_types().data)
        init_position = len(op.inputs) + out_index
        for position, operand in enumerate(op.operands):
            if position == init_position or operand not in self.buffers:
                continue
            if self.buffers[operand].root is not root:
                continue
            same_element = operand is init and maps[position] == maps[init_position]
            if not (position < len(op.inputs) and same_element and parallel):
                return False
        return True

    def may_overwrite(self, value: SSAValue, op: Operation) -> bool:
        """Is ``value``'s buffer a whole temporary of ``op``'s block, or the carried buffer of the
        loop whose body is ``op``'s block, dead after ``op``?"""
        buffer = self.buffers[value]
        root = buffer.root
        if buffer.is_view:
            return False
        if op.parent_block() in self.loop_bodies.get(root, ()):
            return not self.order_of(op).used_later_here(root.aliases, op)
        if root.kind is not RootKind.TEMPORARY or root.block is not op.parent_block():
            return False
        return not self.order_of(op).used_after(root.aliases, op)

    # -- handlers -------------------------------------------------------------

    def _empty(self, op: tensor.EmptyOp) -> None:
        if op.tensor in self.buffers:  # allocated early, for an insert_slice's source (_slice_destination)
            return
        if op.tensor in self.dest:
            out = self.out_params[self.dest[op.tensor]]
            self.bind(op.tensor, out.value, out.root)
            return
        assert isinstance(op.tensor.type, TensorType)
        memref_type = build.memref_type_of(op.tensor.type)
        root = self.temporary([build.alloc(memref_type, list(op.dynamic_sizes))])
        self.bind(op.tensor, root.value, root)

    def _linalg(self, op: LinalgStructuredOperation) -> None:
        ins = [self.buffers[v].value if self.holds_tensor(v) else v for v in op.inputs]
        outs: list[SSAValue] = []
        body_args = op.body.block.args[len(op.inputs):]
        for i, (init, result) in enumerate(zip(op.outputs, op.results, strict=True)):
            init_buffer = self.buffers[init]
            reads_init = (bool(body_args[i].uses) or not build.writes_whole_output(op, i)) and not isinstance(
                init.owner, tensor.EmptyOp
            )
            if result in self.dest:
                target = self.out_params[self.dest[result]]
                if reads_init and init_buffer.value is not target.value:
                    self.emit(build.copy(init_buffer.value, target.value))
                value, root = target.value, target.root
            elif not reads_init and (placed := self._slice_destination(op, i)) is not None:
                value, root = placed
            elif self._writable_in_place(op, i):
                value, root = init_buffer.value, init_buffer.root
            else:
                root = self.temporary(build.alloc_like(init_buffer.value))
                value = root.value
                if reads_init:
                    self.emit(build.copy(init_buffer.value, value))
            outs.append(value)
            self.bind(result, value, root)
        new = type(op).create(
            operands=[*ins, *outs],
            result_types=[],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
            regions=[op.detach_region(r) for r in list(op.regions)],
        )
        self.emit(new)

    def _slice_destination(self, op: LinalgStructuredOperation, i: int) -> tuple[SSAValue, Root] | None:
        """``x[s] = f(x[s], ...)``: a view of ``x``'s slice ``s`` to compute result ``i`` in, when
        that result's one use is (through ``expand_shape``) an ``insert_slice`` into ``x`` that may
        overwrite ``x``, no op in between uses ``x``, and ``op`` reads ``x`` only at ``s``, in the
        order it writes it (each element read, then written, by the same iteration)."""
        block = op.parent_block()
        chain: list[tensor.ExpandShapeOp] = []
        value: SSAValue = op.results[i]
        while True:
            uses = list(value.uses)
            if len(uses) != 1 or uses[0].operation.parent_block() is not block:
                return None
            user = uses[0].operation
            if isinstance(user, tensor.ExpandShapeOp):
                chain.append(user)
                value = user.result
                continue
            if not isinstance(user, tensor.InsertSliceOp) or uses[0].index != 0:
                return None
            insert = user
            break
        dest = self.buffers.get(insert.dest)
        empty = insert.dest.owner
        if dest is None and isinstance(empty, tensor.EmptyOp) and not empty.dynamic_sizes:
            self._empty(empty)  # a concatenation's result, allocated here so that op computes into it
            dest = self.buffers[insert.dest]
        if dest is None or not (self.may_overwrite(insert.dest, insert) or self._returned_in_place(insert)):
            return None
        order = self.order_of(op)
        start, end = order.index[op], order.index[insert]
        if any(isinstance(v, OpResult) and v.op.parent_block() is block and order.index[v.op] > start
               for v in (*insert.offsets, *insert.sizes, *insert.strides)):
            return None  # the slice's bounds are computed after op
        between = [o for o in order.between(start, end) if o not in chain]
        if any(v in dest.root.aliases for o in between for nested in o.walk() for v in nested.operands):
            return None
        maps = op.get_indexing_maps().data
        for k, v in enumerate(op.inputs):
            if v in self.buffers and self.buffers[v].root is dest.root:
                if maps[k] != maps[len(op.inputs) + i] or v.type != op.results[i].type or not _same_slice(v, insert, chain):
                    return None
        view = self._slice_view(dest.value, insert, insert.source.type)  # type: ignore[arg-type]
        for reshape in reversed(chain):
            assert isinstance(view.type, MemRefType) and isinstance(reshape.src.type, TensorType)
            groups = [[g.value.data for g in group.data] for group in reshape.reassociation.data]  # type: ignore[union-attr]
            view_type = build.strided_reshape_type(view.type, groups, reshape.src.type.get_shape(), True)
            if view_type is None:
                return None
            view = self.emit(memref.CollapseShapeOp.create(
                operands=[view], result_types=[view_type], properties={"reassociation": reshape.reassociation},
            )).results[0]
        self.placed.add(insert)
        return view, dest.root

    def _returned_in_place(self, insert: tensor.InsertSliceOp) -> bool:
        """Does ``insert`` write into the out-parameter that already holds its destination (a
        returned concatenation: out_param_destinations gave both the same one)?"""
        if insert.result not in self.dest:
            return False
        return self.buffers[insert.dest].value is self.out_params[self.dest[insert.result]].value

    def _dim(self, op: tensor.DimOp) -> None:
        dim = self.emit(memref.DimOp(self.buffers[op.source].value, op.index))
        op.result.replace_all_uses_with(dim.results[0])

    def _extract(self, op: tensor.ExtractOp) -> None:
        load = self.emit(memref.LoadOp.get(self.buffers[op.tensor].value, list(op.indices)))
        op.result.replace_all_uses_with(load.results[0])

    def _slice_view(self, buffer: SSAValue, op: tensor.ExtractSliceOp | tensor.InsertSliceOp,
                    slice_type: TensorType[Attribute]) -> SSAValue:
        """The ``memref.subview`` of ``buffer`` that ``op``'s (static or dynamic) slice covers."""
        return self.emit(build.subview(
            buffer, op,
            build.mixed(op.static_offsets.get_values(), op.offsets),
            build.mixed(op.static_sizes.get_values(), op.sizes),
            build.mixed(op.static_strides.get_values(), op.strides),
            slice_type,
        )).results[0]

    def _extract_slice(self, op: tensor.ExtractSliceOp) -> None:
        source = self.buffers[op.source]
        assert isinstance(op.result.type, TensorType)
        self.bind(op.result, self._slice_view(source.value, op, op.result.type), source.root)

    def _insert_slice(self, op: tensor.InsertSliceOp) -> None:
        """Into the out-parameter when the result is returned (out_param_destinations), into
        ``dest``'s own buffer when it is a dead temporary, else into a copy of it (a fresh buffer
        where ``dest`` is a ``tensor.empty``, whose contents are undefined); nothing to copy when
        the source was computed in that very slice (_slice_destination)."""
        dest = self.buffers[op.dest]
        if op in self.placed:
            self.bind(op.result, dest.value, dest.root)
            return
        source = self.buffers[op.source]
        undefined = isinstance(op.dest.owner, tensor.EmptyOp)
        target = self.out_params[self.dest[op.result]] if op.result in self.dest else None
        if target is not None and source.root is not target.root:
            if dest.value is not target.value and not undefined:
                self.emit(build.copy(dest.value, target.value))
            value, root = target.value, target.root
        elif self.may_overwrite(op.dest, op) and source.root is not dest.root:
            value, root = dest.value, dest.root
        else:
            root = self.temporary(build.alloc_like(dest.value))
            value = root.value
            if not undefined:
                self.emit(build.copy(dest.value, value))
        source_type = source.value.type
        assert isinstance(source_type, MemRefType)
        slice_type = TensorType(source_type.get_element_type(), source_type.get_shape())
        self.emit(build.copy(source.value, self._slice_view(value, op, slice_type)))
        self.bind(op.result, value, root)

    def _reshape(self, op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> None:
        """A view of the source: a contiguous one reshaped, or a strided one that only gains or
        loses unit dimensions (``x[i, :n]`` as 1-D, a column ``x[:, j]``); else a contiguous copy."""
        assert isinstance(op.result.type, TensorType)
        source = self.buffers[op.src]
        result_type: MemRefType[Attribute] | None = None
        if not build.is_contiguous(source.value):
            groups = [[i.value.data for i in g.data] for g in op.reassociation.data]  # type: ignore[union-attr]
            assert isinstance(source.value.type, MemRefType)
            result_type = build.strided_reshape_type(source.value.type, groups, op.result.type.get_shape(),
                                                     isinstance(op, tensor.CollapseShapeOp))
        if result_type is None:
            source = self._contiguous(op.src)
            result_type = build.memref_type_of(op.result.type)
        if isinstance(op, tensor.CollapseShapeOp):
            new: Operation = memref.CollapseShapeOp.create(
                operands=[source.value], result_types=[result_type],
                properties={"reassociation": op.reassociation},
            )
        else:
            new = memref.ExpandShapeOp.create(
                operands=[source.value, *op.dynamic_output_shape], result_types=[result_type],
                properties={
                    "reassociation": op.reassociation,
                    "static_output_shape": op.static_output_shape,
                },
            )
        self.emit(new)
        self.bind(op.result, new.results[0], source.root)

    def _cast(self, op: tensor.CastOp) -> None:
        """A view of the same buffer with sizes made static or dynamic (a dynamic reshape's static result)."""
        source = self.buffers[op.source]
        assert isinstance(op.dest.type, TensorType)
        new = self.emit(memref.CastOp.get(source.value, build.memref_type_of(op.dest.type)))
        self.bind(op.dest, new.results[0], source.root)

    def _constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        if not isinstance(value, DenseIntOrFPElementsAttr):
            raise DiagnosticException(
                f"kiln-bufferize: unsupported tensor constant {value} in '{op.name}'"
            )
        name = self.pool.symbol_for(value, op.location)
        assert isinstance(op.result.type, TensorType)
        get = self.emit(memref.GetGlobalOp(name, build.memref_type_of(op.result.type)))
        self.bind(op.result, get.results[0], Root(RootKind.CONSTANT, get.results[0]))

    def _call(self, op: func.CallOp) -> None:
        args = [self._contiguous(v).value if self.holds_tensor(v) else v for v in op.arguments]
        outs: list[SSAValue] = []
        callee = self.originals.get(op.callee.root_reference.data)
        for index, result in enumerate(op.results):
            if not self.holds_tensor(result):
                continue
            if result in self.dest:
                target = self.out_params[self.dest[result]]
                value, root = target.value, target.root
            else:
                assert isinstance(result.type, TensorType)
                sizes: list[SSAValue] = []
                if not result.type.has_static_shape():
                    if callee is None:
                        raise DiagnosticException(
                            f"kiln-bufferize: cannot size the dynamic result of call to "
                            f"{op.callee}: no body in the module"
                        )
                    sizes = ResultShapes(callee, args, self.emit).dynamic_sizes(index)
                memref_type = build.memref_type_of(result.type)
                root = self.temporary([build.alloc(memref_type, sizes)])
                value = root.value
            outs.append(value)
            self.bind(result, value, root)
        scalar_results = [r for r in op.results if not self.holds_tensor(r)]
        new = self.emit(func.CallOp(op.callee, [*args, *outs], [r.type for r in scalar_results]))
        for old, replacement in zip(scalar_results, new.results, strict=True):
            old.replace_all_uses_with(replacement)

    def _return(self, op: func.ReturnOp) -> None:
        tensors = [v for v in op.arguments if self.holds_tensor(v)]
        for j, value in enumerate(tensors):
            target = self.out_params[j].value
            if self.buffers[value].value is not target:
                self.emit(build.copy(self.buffers[value].value, target))
        self.emit(func.ReturnOp(*[v for v in op.arguments if not self.holds_tensor(v)]))
