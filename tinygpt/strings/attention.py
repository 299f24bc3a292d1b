"""Strings of the Attention page."""

STRINGS: dict[str, tuple[str, str]] = {
    "attn.title": ("注意力的九个步骤", "The nine steps of attention"),
    "attn.intro": (
        "缩放点积注意力：$\\mathrm{{Attention}}(Q,K,V)=\\mathrm{{softmax}}\\!\\left(\\frac{{QK^\\top}}{{\\sqrt{{d_{{head}}}}}}\\right)V$"
        "（Vaswani 等，2017）。下面是真实模型在你输入的文本上算出的每一个数；改变开关，看后面的步骤如何变化。",
        "Scaled dot-product attention: $\\mathrm{{Attention}}(Q,K,V)=\\mathrm{{softmax}}\\!\\left(\\frac{{QK^\\top}}{{\\sqrt{{d_{{head}}}}}}\\right)V$"
        " (Vaswani et al., 2017). Below is every number the real model computes on your text; flip a switch and watch the later steps change.",
    ),
    "attn.text": ("输入文本", "Input text"),
    "attn.layer": ("层", "Layer"),
    "attn.head": ("头", "Head"),
    "attn.switches": ("假如……（开关）", "What if… (switches)"),
    "attn.mask": ("因果掩码", "Causal mask"),
    "attn.mask_help": ("关闭后，每个位置也能看到后面的字。", "Off: every position can also see later characters."),
    "attn.scaling": ("得分除以", "Divide scores by"),
    "attn.scale_sqrt": ("√d_head = {value:.3g}", "√d_head = {value:.3g}"),
    "attn.scale_one": ("1（不缩放）", "1 (no scaling)"),
    "attn.scale_custom": ("自定义", "custom"),
    "attn.scale_value": ("除数", "Divisor"),
    "attn.temperature": ("softmax 温度 τ", "Softmax temperature τ"),
    "attn.temperature_help": ("α = softmax(S/τ)：τ 小则更尖锐（接近 one-hot），τ 大则更平均。", "α = softmax(S/τ): small τ sharpens rows towards one-hot, large τ flattens them."),
    "attn.step": ("步骤", "Step"),
    "attn.shape": ("形状：{symbolic} = {concrete}", "Shape: {symbolic} = {concrete}"),
    "attn.table": ("{name}（表格）", "{name} (table)"),
    "attn.rows_cols": ("行：查询位置 i，列：键位置 j", "rows: query position i, columns: key position j"),
    "attn.axis_query": ("查询位置 i", "query position i"),
    "attn.axis_key": ("键位置 j", "key position j"),
    "attn.axis_pos": ("位置", "position"),
    "attn.axis_dim": ("维度", "dimension"),
    "attn.value": ("数值", "value"),
    "attn.masked": ("已屏蔽（−∞）", "masked (−∞)"),
    "attn.check_rows": ("α 每行之和：{sums}", "α row sums: {sums}"),
    "attn.check_masked": ("被屏蔽的 α 元素最大值：{value}（应恰好为 0）", "Largest masked α entry: {value} (must be exactly 0)"),
    "attn.check_sdpa": (
        "与 PyTorch scaled_dot_product_attention 的最大差：{diff:.2e}",
        "Max |difference| from PyTorch's scaled_dot_product_attention: {diff:.2e}",
    ),
    "attn.whatif_note": ("开关已改变：从第 {step} 步起重新计算。", "Switches changed: recomputed from step {step} on."),
    "attn.cropped": ("文本超过 max_len={max_len}，只使用最后 {max_len} 个字符。", "The text is longer than max_len={max_len}; the last {max_len} characters are used."),
    "attn.source": ("计算这一步的代码", "The code that computed this step"),
}
