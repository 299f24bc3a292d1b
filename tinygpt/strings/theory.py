"""Strings of the Theory page (seed section 22.2.1, explained in this project's own words).

The concepts' texts are ``theory.<concept id>.title`` / ``.body`` for every id of
``tinygpt.theory.CONCEPTS``; their formulas live there (LaTeX, language-neutral).
Literal braces (LaTeX inside $…$) are doubled because texts are filled with ``str.format``.
"""

STRINGS: dict[str, tuple[str, str]] = {
    "theory.title": ("注意力背后的数学", "The mathematics behind attention"),
    "theory.intro": (
        "注意力只用到几样向量运算：加法、数乘、内积、加权平均和 softmax。本页给出每一样的公式"
        "（依据 Vaswani 等人 2017 年的论文和标准线性代数），配一个可以动手拖动的小例子，"
        "并在每个概念下附上链接，直接跳到“注意力九步”页里真实模型做同一件事的那一步。",
        "Attention is built from a handful of vector operations: addition, scaling, the dot product, a weighted "
        "average and softmax. This page gives the formula of each (after Vaswani et al. 2017 and standard linear "
        "algebra) with a small example you can drag, and links every idea to the step of the Attention page "
        "where the real model does the same thing.",
    ),
    "theory.link": ("在模型中查看：第 {number} 步 · {name}", "See it in the model: step {number} · {name}"),
    "theory.example": ("动手试试", "Try it"),
    # ------------------------------------------------------------ 1. definition
    "theory.definition.title": ("1. 注意力算的是什么", "1. What attention computes"),
    "theory.definition.body": (
        "缩放点积注意力把三组向量变成一组新向量。式中：\n\n"
        "- $Q$：查询矩阵，$n$ 行，每行长 $d_k$，表示每个位置“想找什么”；\n"
        "- $K$：键矩阵，$m$ 行，每行长 $d_k$，表示每个位置“能提供什么线索”；\n"
        "- $V$：值矩阵，$m$ 行，每行长 $d_v$，是每个位置被选中时真正交出的内容；\n"
        "- $QK^\\top$：每个查询与每个键的内积，共 $n \\times m$ 个相似度得分；\n"
        "- $\\sqrt{{d_k}}$：向量越长，内积通常越大；除以 $\\sqrt{{d_k}}$ 把得分拉回合适的范围，"
        "免得 softmax 过早变成“只选一个”、梯度几乎消失；\n"
        "- softmax 按行把得分变成非负、和为 1 的权重，再用这些权重对 $V$ 的行取加权平均。\n\n"
        "在本项目的模型里，每个头的 $d_k = d_v = d_{{head}} = d_{{model}}/h$。",
        "Scaled dot-product attention turns three sets of vectors into one new set. In the formula:\n\n"
        "- $Q$: the query matrix, $n$ rows of length $d_k$, what each position is looking for;\n"
        "- $K$: the key matrix, $m$ rows of length $d_k$, the clue each position offers;\n"
        "- $V$: the value matrix, $m$ rows of length $d_v$, what each position hands over when chosen;\n"
        "- $QK^\\top$: the dot product of every query with every key, $n \\times m$ similarity scores;\n"
        "- $\\sqrt{{d_k}}$: longer vectors tend to give larger dot products; dividing by $\\sqrt{{d_k}}$ brings the "
        "scores back to a workable range, so softmax does not collapse onto a single key too early and leave "
        "almost no gradient;\n"
        "- softmax turns each row of scores into weights that are non-negative and add up to 1, which then "
        "average the rows of $V$.\n\n"
        "In this project's model every head has $d_k = d_v = d_{{head}} = d_{{model}}/h$.",
    ),
    # ------------------------------------------------------------ 2. vectors
    "theory.vector.title": ("2. 向量", "2. Vectors"),
    "theory.vector.body": (
        "向量就是一列按顺序排好的数。二维向量可以画成从原点出发的箭头：第一个数是横向走多远，"
        "第二个数是纵向走多远，所以箭头既有长度又有方向。把两个数换成 $d$ 个数，就得到模型里用的向量："
        "每个字符在模型里由 $d_{{model}}$ 个数表示，每个注意力头处理其中长为 $d_{{head}}$ 的一段。",
        "A vector is an ordered list of numbers. A 2-D vector can be drawn as an arrow from the origin: the first "
        "number says how far to go across, the second how far up, so the arrow has a length and a direction. "
        "With $d$ numbers instead of two you get the vectors the model uses: each character is held as "
        "$d_{{model}}$ numbers, and each attention head works on a slice of $d_{{head}}$ of them.",
    ),
    # ------------------------------------------------------------ 3. operations
    "theory.operations.title": ("3. 向量的三种运算", "3. Three operations on vectors"),
    "theory.operations.body": (
        "- **加法**：对应分量相加；几何上，把一个箭头的起点接到另一个箭头的终点。\n"
        "- **数乘**：每个分量乘同一个数 $c$；箭头被拉长、缩短，$c<0$ 时还会掉头。\n"
        "- **内积**：对应分量相乘再求和，结果是一个数。两个箭头方向相近时内积为正且较大，"
        "互相垂直时为 0，方向相反时为负——所以注意力用内积衡量“有多相关”。",
        "- **Addition** adds matching components; geometrically, start one arrow at the tip of the other.\n"
        "- **Scalar multiplication** multiplies every component by the same number $c$; the arrow stretches, "
        "shrinks, and for $c<0$ turns around.\n"
        "- **The dot product** multiplies matching components and adds them up, giving a single number. It is "
        "large and positive when the arrows point the same way, 0 when they are perpendicular and negative "
        "when they point apart — which is why attention uses it to measure relevance.",
    ),
    "theory.ops.x": ("{name}₁（横向）", "{name}₁ (across)"),
    "theory.ops.y": ("{name}₂（纵向）", "{name}₂ (up)"),
    "theory.ops.c": ("数 c", "scalar c"),
    "theory.ops.sum": ("和 a + b", "sum a + b"),
    "theory.ops.scaled": ("数乘 c · a", "multiple c · a"),
    "theory.ops.dot": ("内积 a · b", "dot product a · b"),
    "theory.ops.dot_detail": (
        "a · b = {a1} × {b1} + {a2} × {b2} = {dot}",
        "a · b = {a1} × {b1} + {a2} × {b2} = {dot}",
    ),
    "theory.ops.positive": ("内积为正：两个箭头大致同向。", "Positive: the arrows point roughly the same way."),
    "theory.ops.zero": ("内积为 0：两个箭头互相垂直（或有一个是零向量）。", "Zero: the arrows are perpendicular (or one of them is the zero vector)."),
    "theory.ops.negative": ("内积为负：两个箭头大致反向。", "Negative: the arrows point roughly apart."),
    "theory.ops.chart_title": ("向量 a、b、a + b 与 c · a", "Vectors a, b, a + b and c · a"),
    "theory.axis.x": ("第 1 个分量", "component 1"),
    "theory.axis.y": ("第 2 个分量", "component 2"),
    "theory.axis.vector": ("向量", "vector"),
    # ------------------------------------------------------------ 4. weighted sum
    "theory.weighted_sum.title": ("4. 加权求和", "4. Weighted sums"),
    "theory.weighted_sum.body": (
        "给 $m$ 个向量 $v_1, \\dots, v_m$ 各配一个权重 $\\alpha_i$，权重都不小于 0、加起来正好是 1，"
        "$o$ 就是这些向量的加权平均：权重大的向量说了算，权重为 0 的向量完全不起作用。"
        "正因为权重非负且和为 1，$o$ 总落在这些向量围成的区域之内——它只是挑选、混合已有的信息，"
        "不会凭空造出新东西。注意力的每一行做的正是这件事，只是权重不是手工给的，而是由查询算出来的。",
        "Give each of $m$ vectors $v_1, \\dots, v_m$ a weight $\\alpha_i$, all at least 0 and adding up to exactly "
        "1; $o$ is then their weighted average: heavily weighted vectors dominate and a vector with weight 0 "
        "contributes nothing. Because the weights are non-negative and sum to 1, $o$ always lies inside the "
        "region the vectors enclose — it selects and blends information that is already there rather than "
        "inventing any. Every row of attention does exactly this; the difference is that its weights are "
        "computed from a query instead of set by hand.",
    ),
    "theory.ws.raw": ("v{i} 的原始权重 r{i}", "raw weight r{i} of v{i}"),
    "theory.ws.raw_help": (
        "任意非负数；页面把它们除以总和，得到和为 1 的 α。",
        "Any non-negative numbers; the page divides them by their total to get weights α that sum to 1.",
    ),
    "theory.ws.col_vector": ("向量", "vector"),
    "theory.ws.col_value": ("取值", "value"),
    "theory.ws.col_raw": ("原始权重 r", "raw weight r"),
    "theory.ws.col_alpha": ("归一化权重 α = r / Σr", "normalised weight α = r / Σr"),
    "theory.ws.output": ("加权和 o = Σ αᵢ vᵢ", "weighted sum o = Σ αᵢ vᵢ"),
    "theory.ws.alpha_sum": ("权重之和 Σ αᵢ = {total}", "Sum of the weights Σ αᵢ = {total}"),
    "theory.ws.chart_title": ("三个值向量与它们的加权和 o", "Three value vectors and their weighted sum o"),
    "theory.err.zero_sum": (
        "原始权重都是 0（{value}）：至少要有一个大于 0，才能归一化成和为 1 的权重。",
        "All raw weights are 0 ({value}): at least one must be greater than 0 to scale them to sum to 1.",
    ),
    "theory.err.negative": (
        "权重 {value} 中有负数：权重必须不小于 0。",
        "The weights {value} include a negative number: weights must be at least 0.",
    ),
    "theory.err.sum": (
        "权重之和是 {value}：归一化的权重加起来必须正好是 1。",
        "The weights add up to {value}: normalised weights must add up to exactly 1.",
    ),
    "theory.err.temperature": (
        "温度 τ = {value} 不可用：须是大于 0 的有限数。",
        "The temperature τ = {value} is not accepted: it must be a finite number greater than 0.",
    ),
    "theory.err.length": (
        "向量长度不匹配（{value}）：参与运算的向量必须一样长。",
        "The vector lengths do not match ({value}): the vectors combined must have the same length.",
    ),
    "theory.err.empty": ("{value} 是空的：至少需要一个数。", "{value} is empty: at least one number is needed."),
    # ------------------------------------------------------------ 5. query, key, value
    "theory.qkv.title": ("5. 查询、键与值", "5. Queries, keys and values"),
    "theory.qkv.body": (
        "注意力让每个位置同时扮演三个角色。查询 $q$ 表达“我现在需要什么信息”；键 $k_i$ 是位置 $i$ 贴出的标签，"
        "说明“我这里有什么”；值 $v_i$ 是位置 $i$ 被选中时真正交出的内容。三者都由同一个输入向量 $x$ "
        "分别乘上三个可学习的矩阵 $W_Q$、$W_K$、$W_V$ 得到。把“用来匹配的标签”和“交出去的内容”分开，"
        "模型就能按一种标准去找、却取回另一种信息。打个比方：在图书馆里，你的问题是查询，书脊上的书名是键，"
        "书里的内容是值。",
        "Attention gives every position three roles at once. The query $q$ says what the position needs right "
        "now; the key $k_i$ is the label position $i$ puts up to say what it holds; the value $v_i$ is what "
        "position $i$ actually hands over when it is chosen. All three come from the same input vector $x$ "
        "multiplied by three learned matrices $W_Q$, $W_K$ and $W_V$. Keeping the label used for matching "
        "apart from the content handed over lets the model search by one criterion and retrieve another kind "
        "of information. Think of a library: your question is the query, the titles on the spines are the "
        "keys, and what is inside the books are the values.",
    ),
    # ------------------------------------------------------------ 6. similarity and softmax
    "theory.softmax.title": ("6. 相似度与 softmax", "6. Similarity and softmax"),
    "theory.softmax.body": (
        "查询与每个键做内积，得到相似度得分 $s_i$。得分可正可负、加起来也不等于 1，还不能直接当权重。"
        "softmax 先取指数（全部变成正数，差距被放大），再除以总和（加起来等于 1）：得分最高的键拿到最大的权重，"
        "它的值在输出里占比最大。给所有得分加上同一个常数，权重不变。把得分先除以温度 $\\tau$ 再做 softmax："
        "$\\tau<1$ 使分布更尖锐，$\\tau \\to 0$ 时几乎只选得分最高者；$\\tau>1$ 使分布更平均。",
        "Dot the query with each key to get a similarity score $s_i$. Scores can be negative and do not add up "
        "to 1, so they are not weights yet. Softmax exponentiates them (all become positive and the gaps widen) "
        "and divides by their total (now they add up to 1): the best-matching key gets the largest weight and "
        "its value dominates the output. Adding the same constant to every score leaves the weights unchanged. "
        "Dividing the scores by a temperature $\\tau$ first sharpens the distribution when $\\tau<1$ (as "
        "$\\tau \\to 0$ it picks the top score almost alone) and flattens it when $\\tau>1$.",
    ),
    "theory.sm.query": ("查询 q 的第 {i} 个分量", "query component q{i}"),
    "theory.sm.temperature": ("softmax 温度 τ", "softmax temperature τ"),
    "theory.sm.temperature_help": (
        "α = softmax(s/τ)：τ 小则权重集中到得分最高的键，τ 大则趋于平均。",
        "α = softmax(s/τ): a small τ concentrates the weight on the top-scoring key, a large τ spreads it evenly.",
    ),
    "theory.sm.scaled": ("得分除以 √d（d = 2）", "Divide the scores by √d (d = 2)"),
    "theory.sm.scaled_help": (
        "矩阵形式里的缩放：s = q · k / √d。",
        "The scaling of the matrix form: s = q · k / √d.",
    ),
    "theory.sm.col_key": ("键", "key"),
    "theory.sm.col_key_vector": ("键向量 k", "key vector k"),
    "theory.sm.col_score": ("得分 s = q · k", "score s = q · k"),
    "theory.sm.col_alpha": ("权重 α", "weight α"),
    "theory.sm.col_value": ("值向量 v", "value vector v"),
    "theory.sm.output": ("输出 o = Σ αᵢ vᵢ", "output o = Σ αᵢ vᵢ"),
    "theory.sm.alpha_sum": ("权重之和：{total}", "Sum of the weights: {total}"),
    "theory.sm.chart_title": ("softmax 权重 α", "Softmax weights α"),
    "theory.sm.axis_key": ("键", "key"),
    "theory.sm.axis_alpha": ("权重 α", "weight α"),
    "theory.sm.vectors_title": ("查询 q、键 k 与输出 o", "Query q, keys k and output o"),
    # ------------------------------------------------------------ 7. matrix form
    "theory.matrix.title": ("7. 矩阵形式", "7. The matrix form"),
    "theory.matrix.body": (
        "把 $m$ 个键按行堆成矩阵 $K$、值堆成 $V$、$n$ 个查询堆成 $Q$，上面逐个查询的计算就变成一次矩阵运算："
        "$QK^\\top$ 一下子算出所有查询与所有键的内积，softmax 按行进行，每行权重再乘 $V$ 就是该查询的输出。"
        "结果与逐个计算完全相同，但可以并行一次完成，这是 Transformer 训练快的原因之一。"
        "在模型的自注意力里，$Q$、$K$、$V$ 来自同一段文本，并用因果掩码把“未来”的位置遮住："
        "这些得分被设为 $-\\infty$，softmax 之后权重恰好是 0。",
        "Stack the $m$ keys as the rows of a matrix $K$, the values as $V$ and $n$ queries as $Q$, and the "
        "query-by-query computation above becomes one matrix computation: $QK^\\top$ gives every query's dot "
        "product with every key at once, softmax runs along each row, and each row of weights times $V$ is "
        "that query's output. The result is identical to computing one query at a time, but it runs in "
        "parallel in one go — one reason Transformers train fast. In the model's self-attention $Q$, $K$ and "
        "$V$ all come from the same text, and a causal mask hides the future positions: their scores are set "
        "to $-\\infty$, so after softmax their weights are exactly 0.",
    ),
    "theory.mx.setup": (
        "三个词元的向量就是上面的三个键；让它们互相注意（$W_Q = W_K = I$，$V$ 是上面的三个值向量，$d_k = 2$，沿用上面的温度）。",
        "Three tokens whose vectors are the three keys above attend to each other ($W_Q = W_K = I$, $V$ holds the "
        "three value vectors above, $d_k = 2$, with the temperature chosen above).",
    ),
    "theory.mx.mask": ("因果掩码", "Causal mask"),
    "theory.mx.mask_help": (
        "打开后，词元 i 只能注意位置 0…i。",
        "On: token i may only attend to positions 0…i.",
    ),
    "theory.mx.token": ("词元 {i}", "token {i}"),
    "theory.mx.chart_title": ("注意力权重 softmax(QKᵀ/√d_k)", "Attention weights softmax(QKᵀ/√d_k)"),
    "theory.mx.axis_query": ("查询（行）", "query (row)"),
    "theory.mx.axis_key": ("键（列）", "key (column)"),
    "theory.mx.value": ("权重 α", "weight α"),
    "theory.mx.masked": ("已屏蔽（−∞）", "masked (−∞)"),
    "theory.mx.weights": ("权重矩阵 α（每行和为 1）", "Weight matrix α (each row sums to 1)"),
    "theory.mx.output": ("输出 αV（每行是一个词元的新向量）", "Output αV (each row is one token's new vector)"),
    "theory.mx.check": (
        "核对：第 2 行用第 6 节的单个查询公式（除以 √d）重新计算，最大差为 {diff}。",
        "Check: row 2 recomputed with the single-query formula of section 6 (divided by √d) differs by at most {diff}.",
    ),
    # ------------------------------------------------------------ exercise
    "theory.exercise.title": ("课后习题", "Exercise"),
    "theory.exercise.question": (
        "自注意力克服了循环神经网络（RNN）在处理长序列时的哪种局限？再用你自己的话说一说注意力机制的核心思想。",
        "Which limitation of recurrent neural networks (RNNs) on long sequences does self-attention overcome? "
        "Then explain, in your own words, the core idea of attention.",
    ),
    "theory.exercise.yours": ("先写下你的答案（只保存在本次会话中）", "Write your own answer first (kept only in this session)"),
    "theory.exercise.show": ("显示参考答案", "Show the reference answer"),
    "theory.exercise.answer": (
        "**RNN 的局限。** RNN 一次读一个词元，把读过的一切压进一个固定大小的隐藏状态。"
        "相隔 $n$ 个位置的信息要经过 $n$ 次连续更新才能传到当前位置，途中不断被冲淡或覆盖；"
        "训练时梯度也要沿这条长链反向传播，容易消失或爆炸，所以远距离的依赖很难学会。"
        "而且第 $t$ 步必须等第 $t-1$ 步算完，同一序列内无法并行，长序列训练很慢。\n\n"
        "**自注意力怎样解决。** 每个位置直接与所有（允许看的）位置比较，任意两个位置之间只隔一步，"
        "信息不必层层转手；所有位置的得分用一次矩阵乘法 $QK^\\top$ 同时算出，可以充分并行。"
        "代价是计算量随序列长度平方增长，并且注意力本身不区分顺序，需要额外加入位置编码。\n\n"
        "**核心思想。** 注意力是一种“按内容软查找”：每个位置提出查询，与所有键比较相似度（内积），"
        "softmax 把相似度变成非负、和为 1 的权重，输出就是各个值的加权平均。"
        "该关注谁不是事先规定的，而是由数据算出、在训练中学会的。在本应用的模型里，"
        "“世”这个位置的权重告诉你它从“你”“好”“世”中各取多少信息来预测下一个字。",
        "**The RNN's limitation.** An RNN reads one token at a time and squeezes everything it has read into a "
        "hidden state of fixed size. Information from $n$ positions back reaches the current position only "
        "through $n$ successive updates, getting diluted or overwritten on the way; in training, the gradient "
        "must travel back along the same long chain and tends to vanish or explode, so long-range dependencies "
        "are hard to learn. And step $t$ cannot start before step $t-1$ is finished, so positions of one "
        "sequence cannot be processed in parallel and long sequences train slowly.\n\n"
        "**How self-attention overcomes it.** Every position compares itself directly with every position it is "
        "allowed to see, so any two positions are one step apart and information is not passed from hand to "
        "hand; the scores of all positions come out of one matrix product $QK^\\top$, which runs in parallel. "
        "The price is a cost that grows with the square of the sequence length, and because attention itself "
        "ignores order, positions have to be encoded separately.\n\n"
        "**The core idea.** Attention is a soft lookup by content: each position asks a query, compares it with "
        "every key (dot product), softmax turns the similarities into non-negative weights that sum to 1, and "
        "the output is the weighted average of the values. Whom to attend to is not fixed in advance; it is "
        "computed from the data and learned in training. In this app's model, the weights of the position "
        "holding 世 tell you how much it takes from 你, 好 and 世 to predict the next character.",
    ),
    # ------------------------------------------------------------ self-check
    "theory.quiz.title": ("自测", "Check yourself"),
    "theory.quiz.intro": ("选一个答案，马上就能看到对错和解释。", "Pick an answer to see at once whether it is right, and why."),
    "theory.quiz.right": ("答对了。{why}", "Right. {why}"),
    "theory.quiz.wrong": ("还不对。{why}", "Not quite. {why}"),
    "theory.quiz.mask_positions.q": (
        "在“你好世界”上做带因果掩码的自注意力时，位置 2（世）可以注意哪些位置？",
        "In causal self-attention over 你好世界, which positions may position 2 (世) attend to?",
    ),
    "theory.quiz.mask_positions.a": ("只有 2", "only 2"),
    "theory.quiz.mask_positions.b": ("0、1、2", "0, 1 and 2"),
    "theory.quiz.mask_positions.c": ("2、3", "2 and 3"),
    "theory.quiz.mask_positions.d": ("0、1、2、3", "0, 1, 2 and 3"),
    "theory.quiz.mask_positions.why": (
        "掩码遮住 j > i 的位置（未来），位置 2 能看到自己和它之前的 0、1。",
        "The mask hides positions j > i (the future); position 2 sees itself and the positions 0 and 1 before it.",
    ),
    "theory.quiz.mask_weight.q": (
        "被掩码的得分在 softmax 之前被设为 −∞。softmax 之后它的权重是多少？",
        "A masked score is set to −∞ before the softmax. What is its weight after the softmax?",
    ),
    "theory.quiz.mask_weight.a": ("一个很小的正数", "a tiny positive number"),
    "theory.quiz.mask_weight.b": ("−∞", "−∞ itself"),
    "theory.quiz.mask_weight.c": ("恰好是 0", "exactly 0"),
    "theory.quiz.mask_weight.d": ("1/T", "1/T"),
    "theory.quiz.mask_weight.why": (
        "exp(−∞) = 0，所以权重恰好为 0；其余权重重新分配，仍然和为 1。在“注意力九步”页的第 6 步可以核对。",
        "exp(−∞) = 0, so the weight is exactly 0 and the other weights still add up to 1. Check it in step 6 of the Attention page.",
    ),
    "theory.quiz.shift.q": (
        "给一行里的每个得分都加上同一个常数 c，softmax 的权重会怎样？",
        "Add the same constant c to every score of a row. What happens to the softmax weights?",
    ),
    "theory.quiz.shift.a": ("都变大", "they all grow"),
    "theory.quiz.shift.b": ("最大的那个变得更大", "the largest one grows"),
    "theory.quiz.shift.c": ("不再和为 1", "they no longer add up to 1"),
    "theory.quiz.shift.d": ("完全不变", "they do not change at all"),
    "theory.quiz.shift.why": (
        "exp(sᵢ + c) = exp(c)·exp(sᵢ)，分子分母同乘 exp(c)，正好约掉。第 6 节的例子里可以验证。",
        "exp(sᵢ + c) = exp(c)·exp(sᵢ): numerator and denominator are both multiplied by exp(c), which cancels. Try it in section 6's example.",
    ),
    "theory.quiz.temperature.q": (
        "温度 τ 越来越接近 0 时，softmax 的权重会变成什么样？",
        "As the temperature τ gets closer and closer to 0, what do the softmax weights become?",
    ),
    "theory.quiz.temperature.a": ("全部相等", "all equal"),
    "theory.quiz.temperature.b": ("集中到得分最高的那一个（接近 one-hot）", "concentrated on the top score (nearly one-hot)"),
    "theory.quiz.temperature.c": ("全部变成 0", "all 0"),
    "theory.quiz.temperature.d": ("有些变成负数", "some become negative"),
    "theory.quiz.temperature.why": (
        "除以很小的 τ 会把得分差距放得很大，最大者的 exp 远远压过其余。τ 很大时则趋于平均。",
        "Dividing by a tiny τ blows up the gaps between scores, so the top score's exponential swamps the rest. A large τ evens them out.",
    ),
}
