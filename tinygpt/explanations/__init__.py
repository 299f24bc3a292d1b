"""The lesson's explanations, computed from the model's own numbers: one walk over the blocks and
the experiments (``explain``), why a switch flipped a prediction (``why``), questions and their named
misconceptions (``exercises``, ``misconceptions``, ``concept_check``, ``predictions``), Theory's vector
mathematics (``theory``) and the charts (``charts``, ``figures``).

It reads the model and the training; the model never imports it.
"""
