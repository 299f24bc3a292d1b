"""Strings of the Predict page."""

STRINGS: dict[str, tuple[str, str]] = {
    "predict.title": ("自回归预测", "Autoregressive prediction"),
    "predict.intro": (
        "输入一个前缀。模型在每个位置给出“下一个字”的概率分布；生成时每一步把选中的字接到末尾，再预测下一个。",
        "Type a prefix. At every position the model gives a probability distribution over the next character; "
        "generation appends the chosen character and predicts again.",
    ),
    "predict.prefix": ("前缀", "Prefix"),
    "predict.n_new": ("生成字符数 N", "Characters to generate N"),
    "predict.per_position": ("每个位置的下一个字分布", "Next-character distribution at each position"),
    "predict.col_context": ("已看到", "seen so far"),
    "predict.col_top": ("最可能的下一个字", "most likely next"),
    "predict.col_expected": ("训练目标", "training target"),
    "predict.generation": ("逐步生成（贪心）", "Step-by-step generation (greedy)"),
    "predict.result": ("结果：{prefix}**{generated}**", "Result: {prefix}**{generated}**"),
    "predict.step": ("第 {n} 步：输入“{context}” → 选择“{chosen}”（p = {p:.4f}）", "Step {n}: input “{context}” → chose “{chosen}” (p = {p:.4f})"),
    "predict.cropped": ("（上下文超过 max_len={max_len}，只输入最后 {max_len} 个字符）", "(context longer than max_len={max_len}: only the last {max_len} characters are fed)"),
    "predict.beyond": ("⚠️ 该位置超出训练长度 {window}，模型在猜测。", "⚠️ This position is past the training length {window}: the model is guessing."),
    "predict.bars_title": ("“{context}”之后的下一个字", "Next character after “{context}”"),
    "predict.axis_char": ("字符", "character"),
    "predict.axis_prob": ("概率", "probability"),
    "predict.too_long": (
        "前缀有 {n} 个字符，超过 max_len={max_len}；逐位置分布只显示最后 {max_len} 个字符。",
        "The prefix has {n} characters, more than max_len={max_len}; the per-position distribution shows the last {max_len}.",
    ),
}
