"""Strings of the Predict page."""

STRINGS: dict[str, tuple[str, str]] = {
    "predict.title": ("自回归预测", "Autoregressive prediction"),
    "predict.intro": (
        "输入一个前缀。模型在每个位置给出“下一个字”的概率分布；生成时每一步把选中的字接到末尾，再预测下一个。",
        "Type a prefix. At every position the model gives a probability distribution over the next character; "
        "generation appends the chosen character and predicts again.",
    ),
    "predict.prefix": ("前缀", "Prefix"),
    "predict.prefix_help": ("只能使用模型认识的字符：{known}", "Use only the characters the model knows: {known}"),
    "predict.n_new": ("生成字符数 N", "Characters to generate N"),
    # decoding
    "predict.decoding": ("解码方式", "Decoding"),
    "predict.strategy.greedy": ("贪心（取概率最大）", "Greedy (most probable)"),
    "predict.strategy.temperature": ("温度采样", "Temperature sampling"),
    "predict.strategy.top_k": ("Top-k 采样", "Top-k sampling"),
    "predict.temperature": ("温度 τ", "Temperature τ"),
    "predict.temperature_help": (
        "采样前 logits 除以 τ：p_τ ∝ p^(1/τ)。τ < 1 更尖锐，τ > 1 更平坦，τ = 0 即贪心。",
        "Logits are divided by τ before sampling: p_τ ∝ p^(1/τ). τ < 1 sharpens, τ > 1 flattens, τ = 0 is greedy.",
    ),
    "predict.top_k": ("k（只在最可能的 k 个字中采样）", "k (sample among the k most probable)"),
    "predict.top_k_help": ("0 表示不限制；k = 1 即贪心。", "0 means no limit; k = 1 is greedy."),
    "predict.seed": ("随机种子", "Random seed"),
    "predict.seed_help": ("相同的种子和设置得到相同的采样结果。", "The same seed and settings give the same sampled text."),
    "predict.context_len": ("每步输入的字符数（上下文窗口）", "Characters fed per step (context window)"),
    "predict.context_len_help": (
        "默认 max_len={max_len}：模型能读的全部。更小的值是滑动窗口，只输入最后几个字符。",
        "Default max_len={max_len}: all the model can read. A smaller value is a sliding window that feeds only the last characters.",
    ),
    "predict.tau_zero": ("τ = 0 即贪心：每一步都选概率最大的字，结果不随种子变化。", "τ = 0 means greedy: every step takes the most probable character, whatever the seed."),
    "predict.tau_max": (
        "τ = {tau}（最大值）：p_τ ∝ p^(1/{tau})，分布被压到本页允许的最平；不太可能的字得到最大的机会（模型越自信，压平后差距仍越大）。",
        "τ = {tau} (the maximum): p_τ ∝ p^(1/{tau}), the flattest this page allows; unlikely characters get their best chance "
        "(the more confident the model, the larger the gap that remains).",
    ),
    "predict.k_zero": (
        "k = 0 表示不做 top-k 截断：全部 {V} 个字都保留（等同于温度采样）。",
        "k = 0 means no top-k cut: all {V} characters are kept (the same as temperature sampling).",
    ),
    "predict.k_one": ("k = 1 只保留最可能的字：等同于贪心。", "k = 1 keeps only the most probable character: the same as greedy."),
    "predict.k_large": (
        "k = {k} 超过模型认识的 {V} 个字：全部 {V} 个字都保留（等同于温度采样）。",
        "k = {k} is more than the {V} characters the model knows: all {V} are kept (the same as temperature sampling).",
    ),
    # input problems
    "predict.empty": ("请输入前缀：至少一个模型认识的字符（{known}）。", "Type a prefix: at least one character the model knows ({known})."),
    "predict.blank": (
        "前缀只有空白。请输入模型认识的字符：{known}",
        "The prefix is only blank space. Type characters the model knows: {known}",
    ),
    "predict.space": ("空格", "space"),
    "predict.too_long": (
        "前缀有 {n} 个字符，超过 max_len={max_len}：模型只能读最后 {max_len} 个，下表和生成都从这 {max_len} 个字符开始。",
        "The prefix has {n} characters, more than max_len={max_len}: the model reads only the last {max_len}; "
        "the table and the generation use those {max_len}.",
    ),
    # per-position table
    "predict.per_position": ("每个位置的下一个字分布", "Next-character distribution at each position"),
    "predict.per_position_note": (
        "第 i 行：模型读了前 i+1 个字后，对下一个字的预测。训练目标来自训练文本的循环移位（{text} → {shifted}）；"
        "红色是最可能的字，▼ 是训练目标。",
        "Row i: the model's prediction of the next character after reading the first i+1. The training target is the "
        "cyclic shift of the training text ({text} → {shifted}); red is the most likely character, ▼ the training target.",
    ),
    "predict.col_pos": ("位置", "position"),
    "predict.col_context": ("已看到", "seen so far"),
    "predict.col_top": ("最可能的下一个字", "most likely next"),
    "predict.col_expected": ("训练目标", "training target"),
    "predict.col_match": ("与目标一致", "matches target"),
    "predict.no_target": ("—", "—"),
    "predict.panel": ("{pos}：{context} → ?", "{pos}: {context} → ?"),
    "predict.legend_top": ("最可能", "most likely"),
    "predict.legend_other": ("其他", "other"),
    "predict.legend_target": ("训练目标", "training target"),
    "predict.axis_char": ("字符", "character"),
    "predict.axis_prob": ("概率", "probability"),
    "predict.panels_range": ("显示从这个位置开始的 {n} 个位置", "Show {n} positions starting at"),
    # generation
    "predict.generation": ("逐步生成", "Step-by-step generation"),
    "predict.n_zero": (
        "N = 0：不生成新字符。上表已给出前缀每个位置的预测；把 N 调大即可逐步生成。",
        "N = 0: nothing is generated. The table above shows the prediction at each position of the prefix; raise N to generate.",
    ),
    "predict.result": ("结果：{prefix}**{generated}**", "Result: {prefix}**{generated}**"),
    "predict.step_slider": ("第几步", "Step"),
    "predict.prev": ("上一步", "Previous step"),
    "predict.next": ("下一步", "Next step"),
    "predict.step_title": ("第 {n} / {total} 步", "Step {n} of {total}"),
    "predict.so_far": ("目前的文本：{text}", "Text so far: {text}"),
    "predict.fed": (
        "输入模型的上下文（{T} 个字符，位置 0–{last}）：**{context}**",
        "Context fed to the model ({T} characters, positions 0–{last}): **{context}**",
    ),
    "predict.cropped": (
        "上下文已截断：文本有 {n} 个字符，只输入最后 {kept} 个；前面的 {dropped} 个字符（{gone}）模型看不到。",
        "Context cropped: the text has {n} characters and only the last {kept} are fed; the first {dropped} ({gone}) are not seen.",
    ),
    "predict.beyond": (
        "这一步在位置 {pos} 预测，超出训练长度：训练只用了位置 0–{last}（{window} 个字符），模型从未学过这个位置，是在猜测。",
        "This step predicts at position {pos}, past the training length: training used positions 0–{last} "
        "({window} characters), so the model never learned this position and is guessing.",
    ),
    "predict.unseen": (
        "训练文本中没有这个上下文（没有训练目标）：位置虽已训练过，这串字却没见过。",
        "This context does not occur in the training text (no training target): the position was trained, this string was not.",
    ),
    "predict.target": ("训练目标：{target}", "Training target: {target}"),
    "predict.chose_greedy": (
        "选择 **{chosen}**：它是概率最大的字（p = {p:.4f}）。",
        "Chose **{chosen}**: it is the most probable character (p = {p:.4f}).",
    ),
    "predict.chose_sampled": (
        "选择 **{chosen}**：从采样分布中抽取（种子 {seed}），它被抽中的概率是 {q:.4f}（模型原始概率 p = {p:.4f}）。",
        "Chose **{chosen}**: drawn from the sampling distribution (seed {seed}); its chance was {q:.4f} "
        "(the model's own p = {p:.4f}).",
    ),
    "predict.series_p": ("p（模型，τ = 1）", "p (model, τ = 1)"),
    "predict.series_greedy": ("贪心：概率最大者为 1", "greedy: 1 for the most probable"),
    "predict.series_tau": ("p_τ（τ = {tau}）", "p_τ (τ = {tau})"),
    "predict.series_tau_k": ("p_τ（τ = {tau}，top-{k}）", "p_τ (τ = {tau}, top-{k})"),
    "predict.bars_title": ("“{context}”之后的下一个字", "Next character after “{context}”"),
    "predict.col_char": ("字符", "character"),
    "predict.col_logit": ("logit", "logit"),
    "predict.col_target_short": ("目标", "target"),
    "predict.col_sampled": ("采样分布", "sampled from"),
    "predict.col_chosen": ("选中", "chosen"),
    "predict.reshape_note": (
        "采样前，温度把分布改写为 p_τ(c) = p(c)^(1/τ) / Σ p^(1/τ)（等于 softmax(logits/τ)），top-k 再只保留最大的 k 个并重新归一化。",
        "Before sampling, temperature reshapes the distribution to p_τ(c) = p(c)^(1/τ) / Σ p^(1/τ) (that is softmax(logits/τ)); "
        "top-k then keeps the k largest and renormalises.",
    ),
    "predict.attn_link": ("在注意力页面查看这一步的上下文“{context}”", "See this step's context “{context}” on the attention page"),
    "predict.all_steps": ("全部步骤一览", "All steps at a glance"),
    "predict.col_step": ("步", "step"),
    "predict.col_fed": ("输入的上下文", "context fed"),
    "predict.col_cropped": ("已截断", "cropped"),
    "predict.col_p_chosen": ("p(选中)", "p(chosen)"),
    "predict.col_beyond": ("超出训练长度", "past training length"),
    "predict.yes": ("是", "yes"),
    "predict.no": ("否", "no"),
}
