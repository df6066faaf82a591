# Re-quantises a GGUF's Q4_1 tensors to another type (dequantised, then quantised again), every
# other tensor and all metadata kept: how the bench's Q8_0 copy of SmolLM2 was made (the figure
# 'LECTERN_SMOLLM2_EXTRA' in benches/local_model.mjs). Needs the PyPI packages gguf and numpy.
#   python3 scripts/requant-gguf.py in.Q4_1.gguf out.Q8_0.gguf Q8_0
import sys
import numpy as np
import gguf
src, dst, qname = sys.argv[1], sys.argv[2], sys.argv[3]
qtype = getattr(gguf.GGMLQuantizationType, qname)
reader = gguf.GGUFReader(src)
arch = reader.fields['general.architecture']
arch = bytes(arch.parts[arch.data[0]]).decode()
writer = gguf.GGUFWriter(dst, arch, endianess=reader.endianess)
for field in reader.fields.values():
    if field.name.startswith('GGUF.') or field.name == 'general.architecture':
        continue
    vt = field.types[0]
    if vt == gguf.GGUFValueType.ARRAY:
        sub = field.types[-1]
        if sub == gguf.GGUFValueType.STRING:
            val = [bytes(field.parts[i]).decode('utf-8', errors='surrogateescape') for i in field.data]
        else:
            val = [field.parts[i].tolist()[0] for i in field.data]
        writer.add_key_value(field.name, val, vt, sub_type=sub)
    elif vt == gguf.GGUFValueType.STRING:
        writer.add_key_value(field.name, bytes(field.parts[field.data[0]]).decode('utf-8', errors='surrogateescape'), vt)
    else:
        writer.add_key_value(field.name, field.parts[field.data[0]].tolist()[0], vt)
counts = {}
for t in reader.tensors:
    shape = [int(x) for x in reversed(t.shape.tolist())]  # numpy order
    if t.tensor_type == gguf.GGMLQuantizationType.Q4_1:
        f = gguf.quants.dequantize(t.data, t.tensor_type).reshape(shape).astype(np.float32)
        if qtype == gguf.GGMLQuantizationType.F16:
            data, ty = f.astype(np.float16), qtype
        elif qtype == gguf.GGMLQuantizationType.F32:
            data, ty = f, qtype
        else:
            data, ty = gguf.quants.quantize(f, qtype), qtype
        writer.add_tensor(t.name, data, raw_shape=data.shape if ty in (gguf.GGMLQuantizationType.F16, gguf.GGMLQuantizationType.F32) else gguf.quants.quant_shape_to_byte_shape(shape, ty), raw_dtype=ty)
    else:
        writer.add_tensor(t.name, t.data, raw_shape=t.data.shape, raw_dtype=t.tensor_type)
    counts[t.tensor_type.name] = counts.get(t.tensor_type.name, 0) + 1
writer.write_header_to_file(); writer.write_kv_data_to_file(); writer.write_tensors_to_file(); writer.close()
print(counts)
