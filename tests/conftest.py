"""pytest 公共设置：把 lecture14/ 放进 sys.path，测试里可以直接 import evolve、fidelity。"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14"))
