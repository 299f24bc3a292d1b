"""Training: the loop of the seed (``train``), its speed machinery (``optim``), a model with its record
(``record``), checkpoints (``checkpoint``), where a trained model comes from (``model_library``) and the
serving engine behind the pages (``jobs`` with ``job_queue``, ``model_shelf``, ``run_records``).

It builds on the model (``tinygpt.model``, ``tinygpt.attention``, ``tinygpt.config``); nothing here
imports the explanations or the class.
"""
