"""Strings of the Attention page."""

STRINGS: dict[str, tuple[str, str]] = {
    # the names of the steps of tinygpt.attention.STEPS, one key per step id
    "step.projection.name": ("线性投影", "Linear projection"),
    "step.split_heads.name": ("拆分多头", "Split heads"),
    "step.scores.name": ("注意力得分", "Scores"),
    "step.scale.name": ("缩放", "Scale"),
    "step.mask.name": ("因果掩码", "Causal mask"),
    "step.softmax.name": ("Softmax 归一化", "Softmax"),
    "step.weighted_sum.name": ("加权求和", "Weighted sum"),
    "step.merge_heads.name": ("合并多头", "Merge heads"),
    "step.output_projection.name": ("输出投影", "Output projection"),
    "attn.title": ("注意力的九个步骤", "The nine steps of attention"),
    "attn.intro": (
        "缩放点积注意力：$\\mathrm{{Attention}}(Q,K,V)=\\mathrm{{softmax}}\\!\\left(\\frac{{QK^\\top}}{{\\sqrt{{d_{{head}}}}}}\\right)V$"
        "（Vaswani 等，2017）。下面是真实模型在你输入的文本上算出的每一个数；改变开关，看后面的步骤如何变化。",
        "Scaled dot-product attention: $\\mathrm{{Attention}}(Q,K,V)=\\mathrm{{softmax}}\\!\\left(\\frac{{QK^\\top}}{{\\sqrt{{d_{{head}}}}}}\\right)V$"
        " (Vaswani et al., 2017). Below is every number the real model computes on your text; flip a switch and watch the later steps change.",
    ),
    "attn.text": ("输入文本", "Input text"),
    "attn.text_help": (
        "只能使用模型词表里的字符；超过 max_len={max_len} 的文本只取最后 {max_len} 个字符。",
        "Only characters of the model's vocabulary; text longer than max_len={max_len} keeps its last {max_len} characters.",
    ),
    "attn.layer": ("层", "Layer"),
    "attn.head": ("头", "Head"),
    "attn.switches": ("假如……（开关）", "What if… (switches)"),
    "attn.switches_help": (
        "开关只改变所选的这一层，并且只从它影响的那一步起重新计算。",
        "The switches change only the chosen layer, and only the steps from the one they affect are recomputed.",
    ),
    "attn.mask": ("因果掩码", "Causal mask"),
    "attn.mask_help": ("关闭后，每个位置也能看到后面的字。", "Off: every position can also see later characters."),
    "attn.scaling": ("得分除以", "Divide scores by"),
    "attn.scale_sqrt": ("√d_head = {value:.3g}", "√d_head = {value:.3g}"),
    "attn.scale_one": ("1（不缩放）", "1 (no scaling)"),
    "attn.scale_custom": ("自定义", "Custom"),
    "attn.scale_value": ("除数", "Divisor"),
    "attn.temperature": ("softmax 温度 τ", "Softmax temperature τ"),
    "attn.temperature_help": (
        "α = softmax(S/τ)：τ 小则更尖锐（接近 one-hot），τ 大则更平均。",
        "α = softmax(S/τ): small τ sharpens rows towards one-hot, large τ flattens them.",
    ),
    "attn.reset": ("恢复模型本来的注意力", "Back to the model's own attention"),
    "attn.step": ("步骤", "Step"),
    "attn.prev": ("上一步", "Previous"),
    "attn.next": ("下一步", "Next"),
    "attn.step_header": ("第 {number} 步（共 {n} 步）：{name}", "Step {number} of {n}: {name}"),
    "attn.shape": ("形状：{symbolic} = {concrete}", "Shape: {symbolic} = {concrete}"),
    "attn.d_head": (
        "d_head = d_model / h = {d_model} / {h} = {d_head}；下面显示批次 0{head_part} 的 {rows} × {cols} 矩阵。",
        "d_head = d_model / h = {d_model} / {h} = {d_head}; below: the {rows} × {cols} matrix of batch 0{head_part}.",
    ),
    "attn.head_part": ("、头 {head}", ", head {head}"),
    "attn.divisor_now": ("这里的除数：{divisor}", "Divisor used here: {divisor}"),
    "attn.tau_now": ("这里的温度：τ = {tau:g}", "Temperature used here: τ = {tau:g}"),
    "attn.output": ("显示", "Show"),
    "attn.all_columns": ("热图显示全部 {D} 列", "Heatmap of all {D} columns"),
    "attn.all_columns_help": (
        "关闭时，热图只画第 {h} 个头使用的那 d_head 列（第 2 步会把它们切出来）；表格始终列出全部数值。",
        "When off, the heatmap draws only the d_head columns head {h} uses (step 2 cuts them out); the table always lists every value.",
    ),
    "attn.table": ("{name}（表格）", "{name} (table)"),
    "attn.download": ("下载 CSV", "Download CSV"),
    "attn.rows_cols": ("行：查询位置 i，列：键位置 j", "rows: query position i, columns: key position j"),
    "attn.axis_query": ("查询位置 i", "query position i"),
    "attn.axis_key": ("键位置 j", "key position j"),
    "attn.axis_pos": ("位置", "position"),
    "attn.axis_dim": ("维度", "dimension"),
    "attn.value": ("数值", "value"),
    "attn.masked": ("已屏蔽（−∞）", "masked (−∞)"),
    "attn.panel_head": ("头 {h}", "head {h}"),
    "attn.panel_layer": ("第 {l} 层", "layer {l}"),
    # the arithmetic of one cell
    "attn.cell_header": ("挑一个格子，看它是怎么算出来的", "Pick a cell and see how it was computed"),
    "attn.cell_row": ("行 i", "Row i"),
    "attn.cell_col": ("列 j", "Column j"),
    "attn.cell_copy": ("这一步不做运算，只是把数搬到新位置：", "This step computes nothing; it moves the number:"),
    "attn.cell_dot": ("点积：前 {shown} 项乘积，共 {n} 项，再求和：", "Dot product: the first {shown} of {n} products, then the sum:"),
    "attn.cell_edited": ("你把这个得分改成了：", "You replaced this score by:"),
    "attn.cell_scale": ("除以缩放因子：", "Divide by the scale:"),
    "attn.cell_masked": ("j > i 是“未来”，被因果掩码屏蔽：", "j > i is the future; the causal mask hides it:"),
    "attn.cell_max": ("第 i 行的 softmax：先减去这一行的最大值（结果不变，但不会溢出）：", "Softmax of row i: first subtract the row's maximum (same result, no overflow):"),
    "attn.cell_exp": ("每一项取指数（τ = {tau:g}；被屏蔽的项 exp(−∞) = 0）：", "Exponentiate each entry (τ = {tau:g}; masked entries give exp(−∞) = 0):"),
    "attn.cell_exp_unmasked": ("每一项取指数（τ = {tau:g}；这一行没有被屏蔽的项）：", "Exponentiate each entry (τ = {tau:g}; nothing in this row is masked):"),
    "attn.mask_off_note": (
        "因果掩码已关闭：这一步原样传递 S̃，没有 −∞，每个位置也能看到后面的位置。",
        "The causal mask is off: this step passes S̃ through unchanged, with no −∞, so every position also sees the later ones.",
    ),
    "attn.cell_sum": ("这一行 {n} 项之和：", "Sum over the row's {n} entries:"),
    "attn.cell_alpha": ("相除，得到注意力权重：", "Divide to get the attention weight:"),
    # checks
    "attn.checks": ("检查（用的就是上面这些数）", "Checks (from the very numbers above)"),
    "attn.check_rows": (
        "α 每一行之和为 1：{n} 行，最大偏差 {dev:.1e}（头 {head}）",
        "Every α row sums to 1: {n} rows, largest deviation {dev:.1e} (head {head})",
    ),
    "attn.check_masked": (
        "被屏蔽的 α：共 {n} 个（所有头），最大值：{value}。图中显示为灰色“已屏蔽”，而不是深色的 0。",
        "Masked α entries: {n} (all heads); the largest is {value}. They are drawn grey as “masked”, not as a dark 0.",
    ),
    "attn.check_no_mask": ("因果掩码已关闭：没有被屏蔽的元素。", "Causal mask off: no entry is masked."),
    "attn.check_module": (
        "与模型自己的注意力模块（block.attn）输出的最大差：{diff:.2e}",
        "Max |difference| from the model's own attention module (block.attn): {diff:.2e}",
    ),
    "attn.check_changed": (
        "你的开关让这一层的输出最多改变了 {diff:.3g}（与模型自己的输出相比）",
        "Your switches change this layer's output by up to {diff:.3g} (compared with the model's own)",
    ),
    "attn.check_sdpa": (
        "与 PyTorch scaled_dot_product_attention（is_causal={causal}, scale={scale:.4g}）的最大差：{diff:.2e}",
        "Max |difference| from PyTorch's scaled_dot_product_attention (is_causal={causal}, scale={scale:.4g}): {diff:.2e}",
    ),
    "attn.check_sdpa_edits": (
        "改过得分后无法与 scaled_dot_product_attention 比较（它不能接受改动的得分）。",
        "With edited scores there is no scaled_dot_product_attention to compare with (it cannot take edited scores).",
    ),
    "attn.check_finite": ("没有 NaN 或 ∞（被屏蔽的 −∞ 除外）。", "No NaN or ∞ anywhere (apart from the masked −∞)."),
    "attn.check_not_finite": ("出现了 NaN 或 ∞：{names}", "NaN or ∞ found in: {names}"),
    "attn.check_masked_value": ("恰好为 0", "exactly 0"),
    # editing scores
    "attn.edit_header": ("假如某个得分不一样？（编辑 S = QKᵀ，第 {layer} 层，头 {head}）", "What if a score were different? (edit S = QKᵀ, layer {layer}, head {head})"),
    "attn.edit_help": (
        "双击一个格子，输入新的原始得分 S[i, j]。改动在第 3 步之后生效，softmax、加权求和、合并和输出投影随之重新计算。",
        "Double-click a cell and type a new raw score S[i, j]. The edit acts after step 3; softmax, weighted sum, merge and output projection are recomputed.",
    ),
    "attn.edit_count": ("已改动 {n} 个得分：{cells}", "{n} score(s) edited: {cells}"),
    "attn.edit_bad": (
        "得分必须是 −{limit} 到 {limit} 之间的数，这些格子被忽略：{cells}",
        "A score must be a number from −{limit} to {limit}; these cells are ignored: {cells}",
    ),
    # whole-model prediction
    "attn.pred_header": ("整个模型的下一个字预测", "The whole model's next-character prediction"),
    "attn.pred_same": (
        "读完“{text}”后，模型预测下一个字是 **{own}**（p = {p:.3f}）。打开一个开关，看预测如何变化。",
        "After “{text}” the model predicts **{own}** next (p = {p:.3f}). Flip a switch to see whether that changes.",
    ),
    "attn.pred_changed": (
        "读完“{text}”后：模型自己预测 **{own}**（p = {p:.3f}）；在第 {layer} 层用你的开关，预测 **{new}**（p = {q:.3f}）。",
        "After “{text}”: the model itself predicts **{own}** (p = {p:.3f}); with your switches in layer {layer} it predicts **{new}** (p = {q:.3f}).",
    ),
    "attn.pred_char": ("字符", "character"),
    "attn.pred_own": ("模型自己的 p", "model's own p"),
    "attn.pred_new": ("用开关后的 p", "p with your switches"),
    "attn.pred_diff": ("变化", "change"),
    "attn.pred_pos": ("位置", "position"),
    "attn.pred_input": ("读到", "input"),
    "attn.pred_own_next": ("模型自己预测", "model's own next"),
    "attn.pred_new_next": ("用开关后预测", "next with your switches"),
    "attn.pred_positions": ("每个位置的预测", "The prediction at every position"),
    # small multiples
    "attn.heads_header": ("第 {layer} 层所有的头（含你的开关）", "All heads of layer {layer} (with your switches)"),
    "attn.layers_header": ("所有层的头 {head}（模型自己的注意力）", "Head {head} in every layer (the model's own attention)"),
    "attn.layers_caption": (
        "开关只作用于所选的层；这里是模型本来的 α，便于比较各层。",
        "The switches act on the chosen layer only; this shows the model's own α, to compare layers.",
    ),
    # training snapshots
    "attn.snap_header": ("训练中注意力是如何形成的", "How attention formed during training"),
    "attn.snap_step": ("训练步数", "Training step"),
    "attn.snap_caption": (
        "训练文本“{text}”在第 {step} 步时的 α（第 {layer} 层，头 {head}）。",
        "α of the training text “{text}” at step {step} (layer {layer}, head {head}).",
    ),
    # notices
    "attn.whatif_note": ("开关已改变：从第 {step} 步起重新计算。", "Switches changed: recomputed from step {step} on."),
    "attn.cropped": (
        "文本有 {n} 个字符，超过 max_len={max_len}，只使用最后 {max_len} 个字符。",
        "The text has {n} characters, more than max_len={max_len}; the last {max_len} characters are used.",
    ),
    "attn.source": ("计算这一步的代码（{path}，第 {first}–{last} 行）", "The code that computed this step ({path}, lines {first}–{last})"),
    "attn.url_bad_layer": (
        "链接中的层 {value} 不存在：这个模型只有第 0–{last} 层。现在显示第 0 层。",
        "The link asks for layer {value}, which does not exist: this model has layers 0–{last}. Showing layer 0.",
    ),
    "attn.url_bad_head": (
        "链接中的头 {value} 不存在：这个模型只有头 0–{last}。现在显示头 0。",
        "The link asks for head {value}, which does not exist: this model has heads 0–{last}. Showing head 0.",
    ),
    "attn.stale_layer": (
        "当前模型没有第 {value} 层（只有第 0–{last} 层），现在显示第 0 层。",
        "The current model has no layer {value} (it has layers 0–{last}); showing layer 0.",
    ),
    "attn.stale_head": (
        "当前模型没有头 {value}（只有头 0–{last}），现在显示头 0。",
        "The current model has no head {value} (it has heads 0–{last}); showing head 0.",
    ),
    "attn.url_bad_step": (
        "链接中的步骤 {value} 不存在；可用：{steps}（或 1–9）。现在显示第 1 步。",
        "The link's step {value} does not exist; accepted: {steps} (or 1–9). Showing step 1.",
    ),
    "attn.url_bad_mask": ("链接中的 mask={value} 无效；可用 1（开）或 0（关）。现在掩码为开。", "The link's mask={value} is not accepted; use 1 (on) or 0 (off). The mask is on."),
    "attn.url_bad_scale": (
        "链接中的 scale={value} 无效；可用 sqrt、1 或 0.01 到 1000 之间的数。现在除以 √d_head。",
        "The link's scale={value} is not accepted; use sqrt, 1 or a number from 0.01 to 1000. Dividing by √d_head.",
    ),
    "attn.url_bad_tau": (
        "链接中的 tau={value} 不在滑块上；可用 {lo:g} 到 {hi:g} 之间的数。现在 τ = {used:g}。",
        "The link's tau={value} is not on the slider; use a number from {lo:g} to {hi:g}. Using τ = {used:g}.",
    ),
}
