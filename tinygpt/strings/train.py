"""Strings of the Train page (and the checkpoint and host-limit messages it shows)."""

STRINGS: dict[str, tuple[str, str]] = {
    "train.title": ("训练微型 GPT", "Train the tiny GPT"),
    "train.intro": (
        "设置超参数并训练。默认值就是教材程序的设置：d_model 512、8 个头、6 层、d_ff 2048、Adam 学习率 1e-4。"
        "模型学习把“你好世界”的每个字映射到下一个字（好世界你）。训练在后台进行：可以暂停、单步、停止，"
        "也可以切换到其他页面再回来。",
        "Set the hyperparameters and train. The defaults are the textbook program's: d_model 512, 8 heads, "
        "6 layers, d_ff 2048, Adam with learning rate 1e-4. The model learns to map each character of "
        "你好世界 to the next one (好世界你). Training runs in the background: pause it, step it, stop it, "
        "or visit the other pages and come back.",
    ),
    "train.presets": ("从预设开始：", "Start from a preset:"),
    "train.preset.seed": ("教材设置", "Textbook settings"),
    "train.preset.small": ("小模型（几秒）", "Small and fast"),
    "train.preset.cheat": ("“作弊”实验", "The “cheating” experiment"),
    "train.preset.seed_help": ("d_model 512、8 头、6 层（约 1900 万参数），与教材程序相同。", "d_model 512, 8 heads, 6 layers (about 19 million parameters), as in the textbook program."),
    "train.preset.small_help": ("d_model 64、4 头、2 层：几秒内训练完。", "d_model 64, 4 heads, 2 layers: trains in seconds."),
    "train.preset.cheat_help": (
        "文本“你好你世你界”、窗口 4、小模型。先训练一次，再关掉“训练时使用因果掩码”再训练一次，比较两条曲线和生成结果。",
        "Text 你好你世你界, window 4, a small model. Train once, then switch off “causal mask during training”, "
        "train again, and compare the curves and the generations.",
    ),
    "train.text": ("训练文本", "Training text"),
    "train.text_help": (
        "模型的词表来自这段文本；目标是每个字的下一个字（末字的下一个是首字）。最多 {max} 个字符。",
        "The vocabulary comes from this text; each character's target is the next one (the last wraps to the first). At most {max} characters.",
    ),
    "train.window": ("训练窗口（字符数，0 = 整段文本）", "Training window (characters, 0 = the whole text)"),
    "train.window_help": (
        "每个训练序列的长度。小于文本长度时，从文本（首尾相接）的每个字开始取一个窗口；不能超过 max_len。",
        "Length of each training sequence. Shorter than the text: one window starts at every character of the "
        "text (read as a cycle). At most max_len.",
    ),
    "train.model_header": ("模型结构", "Architecture"),
    "train.optim_header": ("训练设置", "Training"),
    "train.d_model": ("d_model（隐藏维度）", "d_model (model width)"),
    "train.n_heads": ("n_heads（注意力头数）", "n_heads (attention heads)"),
    "train.n_heads_help": ("只列出能整除 d_model 的头数：d_head = d_model / n_heads。", "Only head counts that divide d_model: d_head = d_model / n_heads."),
    "train.n_layers": ("n_layers（层数）", "n_layers (blocks)"),
    "train.d_ff": ("d_ff（前馈层宽度）", "d_ff (feed-forward width)"),
    "train.max_len": ("max_len（最长上下文）", "max_len (longest context)"),
    "train.norm": ("LayerNorm 位置", "LayerNorm placement"),
    "train.norm.pre": ("Pre-LN（教材）", "Pre-LN (textbook)"),
    "train.norm.post": ("Post-LN（2017 论文）", "Post-LN (2017 paper)"),
    "train.norm_help": (
        "Pre-LN：x + 子层(LayerNorm(x))；Post-LN：LayerNorm(x + 子层(x))，Vaswani 等 2017 的原始写法。",
        "Pre-LN: x + Sublayer(LayerNorm(x)); Post-LN: LayerNorm(x + Sublayer(x)), the original of Vaswani et al. 2017.",
    ),
    "train.positions": ("位置编码", "Positions"),
    "train.positions.learned": ("可学习（教材）", "Learned (textbook)"),
    "train.positions.sinusoidal": ("正弦（2017 论文）", "Sinusoidal (2017 paper)"),
    "train.lr": ("学习率 lr", "Learning rate lr"),
    "train.epochs": ("训练轮数 epochs", "Epochs"),
    "train.epochs_help": ("每轮是一次优化器更新。本机最多 {max} 轮。", "Each epoch is one optimizer step. At most {max} on this host."),
    "train.seed": ("随机种子 seed", "Random seed"),
    "train.early_stop": ("提前停止：损失低于", "Early stop: loss below"),
    "train.early_stop_help": ("损失低于此值即停止训练（0 表示不提前停止）。", "Training stops once the loss is below this (0 = never stop early)."),
    "train.causal_mask": ("训练时使用因果掩码", "Causal mask during training"),
    "train.causal_mask_help": (
        "关掉后，训练时每个位置都能看到它要预测的下一个字（“作弊”），损失会更低；但生成时看不到未来，结果可能出错。",
        "Off: during training every position can read the character it must predict (“cheating”), so the loss "
        "falls lower; generation cannot see the future and may go wrong.",
    ),
    "train.params": ("参数量：{n:,} · d_head = {d_head} · 每步 {tokens} 个字符", "Parameters: {n:,} · d_head = {d_head} · {tokens} tokens per step"),
    "train.limits": (
        "本机上限：参数 {params}，轮数 {epochs}，文本 {text} 个字符，每步 {tokens} 个字符。",
        "Limits on this host: {params} parameters, {epochs} epochs, {text} characters of text, {tokens} tokens per step.",
    ),
    "train.lr_large": (
        "⚠️ 学习率 {lr:g} 很大：Adam 每步把每个权重改动约 {lr:g}，损失可能跳动或变成 NaN（那时训练会停在最后一个有限的步并提示）。",
        "⚠️ Learning rate {lr:g} is large: Adam moves every weight by about {lr:g} per step, so the loss may jump or become NaN (training then stops at the last finite step and says so).",
    ),
    "train.start": ("开始训练", "Train"),
    "train.pause": ("暂停", "Pause"),
    "train.resume": ("继续", "Resume"),
    "train.step": ("单步", "Step"),
    "train.step_help": ("只做一次优化器更新，然后暂停。", "One optimizer step, then pause."),
    "train.stop": ("停止", "Stop"),
    "train.reset": ("重置", "Reset"),
    "train.reset_help": ("丢弃当前这次训练（已训练完成的模型和之前的曲线保留）。", "Discard the current run (finished models and earlier curves are kept)."),
    "train.this_run": ("本次训练：{settings}", "This run: {settings}"),
    "train.waiting": ("排队中：第 {place} 位（本机同时最多训练 {slots} 个任务）。", "Waiting: place {place} in line (this host trains {slots} jobs at a time)."),
    "train.starting": ("正在准备模型…", "Preparing the model…"),
    "train.running": ("训练中：第 {step} / {epochs} 步，损失 {loss:.3e}", "Training: step {step} / {epochs}, loss {loss:.3e}"),
    "train.speed": ("{rate:.1f} 步/秒，最多还需约 {eta:.0f} 秒", "{rate:.1f} steps/s, at most about {eta:.0f} s left"),
    "train.paused": ("已暂停于第 {step} 步，损失 {loss}。按“继续”或“单步”。", "Paused at step {step}, loss {loss}. Press Resume or Step."),
    "train.replaying": (
        "损失变成非有限值：正在重放第 {i} / {n} 步，恢复最后一组有限的权重…",
        "The loss stopped being finite: replaying step {i} / {n} to restore the last finite weights…",
    ),
    "train.done_cached": (
        "这些设置在本服务器上已经训练过，直接使用那个模型，无需重新训练：{steps} 步，最终损失 {loss:.3e}，"
        "当时用时 {seconds:.1f} 秒（{reason}）。预测页和注意力页现在使用这个模型。",
        "These settings were trained before on this server, so that model is used at once, no training needed: "
        "{steps} steps, final loss {loss:.3e}, trained then in {seconds:.1f} s ({reason}). The Predict and Attention pages now use this model.",
    ),
    "train.diverged": (
        "损失没有下降：从第 1 步的 {first:.3g} 升到最后的 {last:.3g}。学习率 lr = {lr:g} 对这个模型可能太大，"
        "试试 {suggest:g}。预测页和注意力页继续使用你之前的模型。",
        "The loss did not go down: it went from {first:.3g} at step 1 to {last:.3g} at the end. The learning rate "
        "lr = {lr:g} is probably too large for this model; try {suggest:g}. The Predict and Attention pages keep using the model you had.",
    ),
    "train.use_diverged": ("仍然使用这个模型", "Use this model anyway"),
    "train.diverged_in_use": (
        "预测页和注意力页正在使用这个模型，它的损失从 {first:.3g} 升到了 {last:.3g}。",
        "The Predict and Attention pages use this model, whose loss went up from {first:.3g} to {last:.3g}.",
    ),
    "train.done": (
        "训练完成：{steps} 步，最终损失 {loss:.3e}，用时 {seconds:.1f} 秒（{reason}）。预测页和注意力页现在使用这个模型。",
        "Training finished: {steps} steps, final loss {loss:.3e}, {seconds:.1f} s ({reason}). The Predict and Attention pages now use this model.",
    ),
    "train.reason.epochs": ("达到设定轮数", "all epochs done"),
    "train.reason.early_stop": ("损失已低于提前停止阈值", "loss fell below the early-stop threshold"),
    "train.reason.stopped": ("已停止", "stopped"),
    "train.reason.non_finite": ("损失非有限", "non-finite loss"),
    "train.stopped": ("已停止于第 {steps} 步；之前训练好的模型保持不变。", "Stopped at step {steps}; the model you had before is kept."),
    "train.stopped_timeout": (
        "暂停超过 {minutes} 分钟，训练已自动停止，以便别人使用训练名额。",
        "Paused for more than {minutes} minutes, so the run stopped by itself to free its training slot for others.",
    ),
    "train.stopped_in_use": (
        "已停止；各页面现在使用这个停止时的模型（{steps} 步）。",
        "Stopped; every page now uses this stopped model ({steps} steps).",
    ),
    "train.use_stopped": ("使用这个停止时的模型", "Use this stopped model"),
    "train.non_finite": (
        "第 {step} 步的损失变成了 {loss}（学习率 {lr:g} 太大）。训练已停止，之前的模型保持不变。请试试更小的学习率，例如 {suggest:g}。",
        "The loss became {loss} at step {step} (learning rate {lr:g} is too large). Training stopped and your previous model is kept. Try a smaller learning rate such as {suggest:g}.",
    ),
    "train.non_finite_kept": (
        "这次训练保留了第 {kept} 步的权重（最后一个有限损失 {loss:.3e}）；图中只画有限的损失。",
        "This run kept the weights of step {kept} (the last finite loss, {loss:.3e}); the chart shows only finite losses.",
    ),
    "train.chart_title": ("训练损失（对数坐标）", "Training loss (log scale)"),
    "train.chart_empty": ("按“开始训练”后，每一步的损失会画在上图中。", "Press Train and the loss of every step is drawn above."),
    "train.axis_step": ("步", "step"),
    "train.axis_loss": ("交叉熵损失", "cross-entropy loss"),
    "train.axis_run": ("训练", "run"),
    "train.overlay": ("叠加之前的训练曲线", "Overlay earlier runs"),
    "train.runs_header": ("本次会话的训练记录", "Runs in this session"),
    "train.runs_help": (
        "标签只写出各次训练之间不同的设置。贪心生成从文本的第一个字开始，总是使用因果掩码（生成时看不到未来）。",
        "Labels name only the settings that differ between runs. Greedy generation starts from the text's first "
        "character and always uses the causal mask (generation cannot see the future).",
    ),
    "train.col.input": ("输入", "Input"),
    "train.col.target": ("目标（右移一个字）", "Target (shifted by one character)"),
    "train.pairs": (
        "**训练样本**：{n} 条{shown_part}。每个位置都要预测目标中同一位置的字，也就是输入中它的下一个字。",
        "**Training pairs**: {n}{shown_part}. At every position the model must predict the target's character there, the input's next one.",
    ),
    "train.pairs_shown": ("（显示前 {shown} 条）", " (the first {shown} shown)"),
    "train.loss_formula": (
        "训练要让交叉熵 $L = -\\frac{{1}}{{N T}}\\sum_{{n,t}} \\log p_\\theta(x_{{t+1}} \\mid x_{{\\le t}})$ 变小："
        "$N$ 条样本、每条 $T$ 个位置上，正确的下一个字的概率取对数、求平均、再取负。",
        "Training makes the cross-entropy $L = -\\frac{{1}}{{N T}}\\sum_{{n,t}} \\log p_\\theta(x_{{t+1}} \\mid x_{{\\le t}})$ small: "
        "the log-probability of the correct next character, averaged over the $N$ pairs and their $T$ positions, negated.",
    ),
    "train.col.run": ("训练", "Run"),
    "train.col.status": ("结果", "Result"),
    "train.col.steps": ("步数", "Steps"),
    "train.col.final_loss": ("最终损失", "Final loss"),
    "train.col.mask": ("因果掩码", "Causal mask"),
    "train.col.generation": ("贪心生成", "Greedy generation"),
    "train.col.expected": ("文本中的下文", "What the text says"),
    "train.col.match": ("一致？", "Match?"),
    "train.yes": ("是", "yes"),
    "train.no": ("否", "no"),
    "train.ckpt_header": ("保存与载入模型", "Save and load a model"),
    "train.download": ("下载当前模型（safetensors）", "Download the current model (safetensors)"),
    "train.session_note": (
        "训练出的模型只保存在这次浏览器会话里：刷新或关闭页面就会开始新的会话。想保留模型，请先下载。",
        "Models you train live in this browser session: reloading or closing the page starts a new one. Download a model to keep it.",
    ),
    "train.download_help": (
        "权重保存为 safetensors；配置、词表、文本和损失曲线写在文件的元数据（JSON）里。",
        "Weights as safetensors; the configuration, vocabulary, text and loss curve are in the file's metadata (JSON).",
    ),
    "train.upload": ("载入模型文件（.safetensors）", "Load a model file (.safetensors)"),
    "train.upload_ok": (
        "已载入：文本“{text}”，{params:,} 个参数，{steps} 步。所有页面现在使用这个模型。",
        "Loaded: text “{text}”, {params:,} parameters, {steps} steps. Every page now uses this model.",
    ),
    "train.text_too_long": ("训练文本有 {n} 个字符，最多 {max} 个。", "The training text has {n} characters; at most {max} are accepted."),
    # The checkpoint loader's refusals (tinygpt.checkpoint.CheckpointError keys).
    "ckpt.err.too_large": ("文件有 {size} 字节，超过上限 {limit} 字节。", "The file has {size} bytes; at most {limit} are accepted."),
    "ckpt.err.pickle": (
        "这是 pickle / PyTorch .pt 文件。它在载入时可以执行代码，所以本应用从不载入它。请上传本应用下载的 .safetensors 文件。",
        "This is a pickle / PyTorch .pt file. Loading one can run code, so this app never loads it. Upload a .safetensors file downloaded from this app.",
    ),
    "ckpt.err.truncated": ("文件不完整（只有 {size} 字节），可能下载或上传中断了。", "The file is incomplete ({size} bytes); the download or upload may have been cut short."),
    "ckpt.err.not_safetensors": ("这不是 safetensors 文件。", "This is not a safetensors file."),
    "ckpt.err.not_ours": ("这是 safetensors 文件，但不是本应用保存的模型（缺少配置和词表）。", "This is a safetensors file but not a model saved by this app (no configuration and vocabulary)."),
    "ckpt.err.version": ("文件格式版本 {version}，本应用读取版本 {supported}。", "File format version {version}; this app reads version {supported}."),
    "ckpt.err.metadata": ("文件的元数据字段 {field} 缺失或无效。", "The file's metadata field {field} is missing or invalid."),
    "ckpt.err.config": ("文件中的配置不被接受：{error}", "The configuration in the file is not accepted: {error}"),
    "ckpt.err.vocab": (
        "词表“{vocab}”（{n} 个字符）与 vocab_size={vocab_size} 或训练文本不一致。",
        "The vocabulary “{vocab}” ({n} characters) does not match vocab_size={vocab_size} or the training text.",
    ),
    "ckpt.err.shapes": (
        "张量 {name} 的形状是 {found}，而文件中的配置要求 {expected}。",
        "Tensor {name} has shape {found}; the configuration in the file needs {expected}.",
    ),
    "ckpt.err.unexpected": ("文件中有配置之外的张量 {name}。", "The file holds a tensor {name} that the configuration does not have."),
    "ckpt.err.dtype": ("张量 {name} 的数据类型是 {dtype}；只接受 F32（float32）。", "Tensor {name} has dtype {dtype}; only F32 (float32) is accepted."),
    "ckpt.err.malformed": ("safetensors 数据已损坏：{error}", "The safetensors data is damaged: {error}"),
    "ckpt.err.non_finite": ("张量 {name} 含有 NaN 或无穷大，不能使用。", "Tensor {name} holds NaN or infinite values and cannot be used."),
    # Host limits (tinygpt.limits.check_host_limits / host_configs); error_text looks up accepted.<key>.
    "accepted.max_text_len": ("本机最多 {limit} 个字符", "at most {limit} characters on this host"),
    "accepted.window": ("1 到 max_len={max_len} 之间", "from 1 to max_len={max_len}"),
    "accepted.max_tokens": (
        "每步最多 {limit} 个字符（现在是 {n} 个序列 × 窗口 {window}）；请缩短文本或窗口",
        "at most {limit} tokens per step on this host (now {n} sequences × window {window}); shorten the text or the window",
    ),
    "accepted.max_work": (
        "参数量 × 每步字符数最多 {limit}（现在 {params} × {tokens}）；请用更小的模型或更短的文本/窗口",
        "parameters × tokens per step at most {limit} on this host (now {params} × {tokens}); use a smaller model or a shorter text / window",
    ),
    "accepted.max_epochs": ("本机最多 {limit} 轮", "at most {limit} epochs on this host"),
}
