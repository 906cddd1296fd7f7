#!/usr/bin/env python3
"""The anchor for LectorNeural's figures: piper-tts's own Python API on the same text, one ONNX
Runtime thread as Lector uses. Usage: piper-anchor.py MODEL.onnx [--alignments] (pip install piper-tts)."""
import resource
import sys
import time

import onnxruntime

# piper-tts makes its session with default options (a thread per core): ask for one, as Lector does.
_SessionOptions = onnxruntime.SessionOptions


def _one_thread():
    options = _SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return options


onnxruntime.SessionOptions = _one_thread

from piper import PiperVoice  # noqa: E402

import pathlib  # noqa: E402

# Moby-Dick's first paragraph, a sentence a line, beside this script (LectorNeuralTests, lector-bench neural).
TEXT = " ".join(pathlib.Path(__file__).with_name("moby-dick.txt").read_text(encoding="utf-8").split("\n")).strip()

model = sys.argv[1]
alignments = "--alignments" in sys.argv
start = time.perf_counter()
voice = PiperVoice.load(model, include_alignments=alignments)
load = time.perf_counter() - start
start = time.perf_counter()
first = None
samples = 0
for chunk in voice.synthesize(TEXT, include_alignments=alignments):
    first = first or time.perf_counter() - start
    samples += len(chunk.audio_float_array)
took = time.perf_counter() - start
audio = samples / voice.config.sample_rate
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"piper-tts: load {load:.3f} s; {audio:.1f} s audio in {took:.2f} s, RTF {took / audio:.3f}, "
      f"first chunk {first * 1000:.0f} ms, peak RSS {peak_mb:.0f} MB, alignments {alignments}")
