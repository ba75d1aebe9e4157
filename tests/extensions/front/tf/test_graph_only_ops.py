"""Graphs that were not frozen for inference: input pipelines become model inputs, Saver
subgraphs and table initialisers stay out of the model, lookups in constant hash tables are
converted, and variables (and the rest of that machinery) are refused with one message."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.runtime import assert_close, run_ir
from tests.utils.tf_models import check_tf1_raw, convert_pb, random, write_pb

v1 = tf.compat.v1


def graph_def_of(build):
    """(GraphDef as built, not frozen, values computed by ``build(session)``)."""
    graph = tf.Graph()
    with graph.as_default(), v1.Session(graph=graph) as session:
        expected = build(session)
        return graph.as_graph_def(), expected


def ir_inputs(xml):
    from tests.utils.runtime import core
    model = core().read_model(xml)
    return [(sorted(p.get_names()), p.get_element_type().get_type_name(), p.get_partial_shape().to_string())
            for p in model.inputs]


def test_iterator_get_next_becomes_inputs(tmp_path):
    data = (random((4, 3)), np.arange(4, dtype=np.int64))

    def build(session):
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(2)
        x, n = v1.data.make_one_shot_iterator(dataset).get_next()
        y = tf.identity(x * 2.0 + tf.cast(n, tf.float32)[:, None], name="y")
        return session.run(y)
    graph_def, expected = graph_def_of(build)
    assert "IteratorGetNext" in {n.op for n in graph_def.node}
    xml = convert_pb(write_pb(graph_def, tmp_path / "model.pb"), tmp_path / "ir", output="y")
    inputs = ir_inputs(xml)
    assert [i[1] for i in inputs] == ["f32", "i64"]
    assert "IteratorGetNext:1" in inputs[1][0]
    assert_close(run_ir(xml, [data[0][:2], data[1][:2]]), [expected])


def test_queue_dequeue_becomes_inputs(tmp_path):
    def build(session):
        queue = v1.FIFOQueue(4, [tf.float32], shapes=[[3]])
        x = queue.dequeue_many(2)
        tf.identity(x + 1.0, name="y")
    graph_def, _ = graph_def_of(build)
    xml = convert_pb(write_pb(graph_def, tmp_path / "model.pb"), tmp_path / "ir", output="y")
    assert [i[2] for i in ir_inputs(xml)] == ["[2,3]"]
    x = random((2, 3))
    assert_close(run_ir(xml, [x]), [x + 1.0])


def test_saver_subgraph_is_not_an_output(tmp_path):
    """A graph with a Saver and no declared outputs: the outputs are the model's, not the Saver's
    string tensors; the variables are frozen by the graph_util."""
    def build(session):
        x = v1.placeholder(tf.float32, [2, 3], name="x")
        w = v1.get_variable("w", initializer=np.full((3,), 2.0, np.float32))
        tf.multiply(x, w, name="y")
        v1.train.Saver()
        session.run(v1.global_variables_initializer())
        return v1.graph_util.convert_variables_to_constants(session, session.graph.as_graph_def(), ["y"])
    graph_def, frozen = graph_def_of(build)
    assert {"SaveV2", "RestoreV2"} <= {n.op for n in graph_def.node}
    # the frozen graph with the Saver's nodes put back: none of them is an output
    saver = [n for n in graph_def.node if n.name.startswith("save/")]
    frozen.node.extend(saver)
    xml = convert_pb(write_pb(frozen, tmp_path / "model.pb"), tmp_path / "ir")
    x = random((2, 3))
    assert_close(run_ir(xml, [x]), [x * 2.0])


def table_values(values: list, value_type):
    return tf.constant([str(v) for v in values] if value_type == tf.string else values, value_type)


@pytest.mark.parametrize("key_type, value_type", [(tf.int32, tf.float32), (tf.int64, tf.int32), (tf.int64, tf.int64),
                                                  (tf.int32, tf.float64), (tf.int64, tf.string)])
@pytest.mark.parametrize("query_shape", [(2, 3), ()])
@pytest.mark.parametrize("version", [1, 2])
def test_lookup_in_a_constant_table(tmp_path, key_type, value_type, query_shape, version):
    """Numeric keys, values of any type a table holds (strings too: the IR carries string
    constants), a query of any rank."""
    keys, values = [2, 0, 3, -2, 4, 10], [2, 13, -2, 0, 3, 1]
    query = np.array([[0, 10, 7], [-2, 3, 99]], key_type.as_numpy_dtype).reshape(-1)[:int(np.prod(query_shape))]
    query = query.reshape(query_shape)
    table_op = tf.raw_ops.HashTable if version == 1 else tf.raw_ops.HashTableV2
    fill = tf.raw_ops.LookupTableImport if version == 1 else tf.raw_ops.LookupTableImportV2
    find = tf.raw_ops.LookupTableFind if version == 1 else tf.raw_ops.LookupTableFindV2
    size = tf.raw_ops.LookupTableSize if version == 1 else tf.raw_ops.LookupTableSizeV2

    def build():
        x = v1.placeholder(key_type, query.shape, name="x")
        table = table_op(key_dtype=key_type, value_dtype=value_type)
        filled = fill(table_handle=table, keys=tf.constant(keys, key_type), values=table_values(values, value_type))
        with tf.control_dependencies([filled]):
            found = find(table_handle=table, keys=x, default_value=table_values([-100], value_type)[0])
            return [found, size(table_handle=table)]
    check_tf1_raw(tmp_path, build, [query])


def test_table_filled_from_model_inputs(tmp_path):
    """Keys and values the model is given, filled twice: a key filled again takes its last value,
    and the size counts distinct keys."""
    def build():
        query = v1.placeholder(tf.int64, [5], name="query")
        keys = v1.placeholder(tf.int64, [4], name="keys")
        values = v1.placeholder(tf.float32, [4], name="values")
        table = tf.raw_ops.MutableHashTableV2(key_dtype=tf.int64, value_dtype=tf.float32)
        first = tf.raw_ops.LookupTableInsertV2(table_handle=table, keys=keys, values=values)
        with tf.control_dependencies([first]):
            second = tf.raw_ops.LookupTableInsertV2(table_handle=table, keys=tf.constant([7, 8], tf.int64),
                                                    values=tf.constant([70.0, 80.0]))
        with tf.control_dependencies([second]):
            return [tf.raw_ops.LookupTableFindV2(table_handle=table, keys=query, default_value=-1.0),
                    tf.raw_ops.LookupTableSizeV2(table_handle=table)]
    check_tf1_raw(tmp_path, build, [np.array([5, 7, 1, 8, 6], np.int64), np.array([5, 7, 5, 6], np.int64),
                                    np.array([1.0, 2.0, 3.0, 4.0], np.float32)])


def test_table_of_string_keys_is_refused(tmp_path):
    from mo.errors import ConversionError

    def build():
        x = v1.placeholder(tf.string, [2], name="x")
        table = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
        filled = tf.raw_ops.LookupTableImportV2(table_handle=table, keys=tf.constant(["a", "b"]),
                                                values=tf.constant([1, 2], tf.int64))
        with tf.control_dependencies([filled]):
            return [tf.raw_ops.LookupTableFindV2(table_handle=table, keys=x, default_value=tf.constant(0, tf.int64))]
    with pytest.raises(ConversionError, match="keys are strings"):
        check_tf1_raw(tmp_path, build, [np.array([b"a", b"c"], object)])


def test_variables_are_refused_with_one_message(tmp_path):
    from mo.errors import ConversionError

    def build(session):
        x = v1.placeholder(tf.float32, [2], name="x")
        w = v1.get_variable("w", initializer=np.ones(2, np.float32), use_resource=False)
        r = tf.Variable(np.ones(2, np.float32), name="r")
        tf.identity(x * w + r + tf.cast(v1.is_variable_initialized(w), tf.float32), name="y")
    graph_def, _ = graph_def_of(build)
    with pytest.raises(ConversionError) as error:
        convert_pb(write_pb(graph_def, tmp_path / "model.pb"), tmp_path / "ir", output="y")
    message = str(error.value)
    assert "VariableV2 (w)" in message and "VarHandleOp (r)" in message and "IsVariableInitialized" in message
    assert "convert_variables_to_constants" in message and message.count("not frozen") == 1


@pytest.mark.parametrize("shape", [None, [4, 3], [2, 5]])
@pytest.mark.parametrize("inner", [(), (2,)])
def test_ragged_tensor_to_tensor(tmp_path, shape, inner):
    from tests.utils.tf_models import check_tf
    values = random((7,) + inner)
    splits = np.array([0, 3, 3, 7], np.int64)

    def fn(v, s):
        target = tf.constant(-1 if shape is None else shape + list(inner), tf.int64)
        return tf.raw_ops.RaggedTensorToTensor(shape=target, values=v, default_value=tf.constant(9.0),
                                               row_partition_tensors=[s], row_partition_types=["ROW_SPLITS"])
    check_tf(tmp_path, fn, [values, splits])


@pytest.mark.parametrize("split_type", [np.int32, np.int64])
def test_ragged_tensor_to_sparse(tmp_path, split_type):
    from tests.utils.tf_models import check_tf

    def fn(v, s):
        return tf.raw_ops.RaggedTensorToSparse(rt_nested_splits=[s], rt_dense_values=v)
    check_tf(tmp_path, fn, [random((6,)), np.array([0, 2, 2, 6], split_type)])


def test_string_processing_is_refused(tmp_path):
    from mo.errors import ConversionError

    def build(session):
        text = v1.placeholder(tf.string, [2], name="text")
        buckets = tf.strings.to_hash_bucket_fast(tf.strings.lower(text), 10)
        tf.identity(buckets, name="y")
    graph_def, _ = graph_def_of(build)
    with pytest.raises(ConversionError, match=r"string operations.*StringLower \(StringLower\); "
                                              r"StringToHashBucketFast .*--input"):
        convert_pb(write_pb(graph_def, tmp_path / "model.pb"), tmp_path / "ir", output="y")


def test_initialization_check_of_a_frozen_variable(tmp_path):
    """Freezing makes the variable a constant and leaves IsVariableInitialized reading it: true."""
    def build(session):
        x = v1.placeholder(tf.float32, [2], name="x")
        w = v1.get_variable("w", initializer=np.full(2, 3.0, np.float32), use_resource=False)
        tf.identity(x * w * tf.cast(v1.is_variable_initialized(w), tf.float32), name="y")
        session.run(v1.global_variables_initializer())
        return v1.graph_util.convert_variables_to_constants(session, session.graph.as_graph_def(), ["y"])
    _, frozen = graph_def_of(build)
    assert "IsVariableInitialized" in {n.op for n in frozen.node}
    xml = convert_pb(write_pb(frozen, tmp_path / "model.pb"), tmp_path / "ir", output="y")
    x = random((2,))
    assert_close(run_ir(xml, [x]), [x * 3.0])
