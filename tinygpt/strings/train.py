"""Strings of the Train page."""

STRINGS: dict[str, tuple[str, str]] = {
    "train.title": ("训练微型 GPT", "Train the tiny GPT"),
    "train.intro": (
        "设置超参数并训练。默认值就是教材程序的设置：d_model 512、8 个头、6 层、d_ff 2048、Adam 学习率 1e-4。"
        "模型学习把“你好世界”的每个字映射到下一个字（好世界你）。",
        "Set the hyperparameters and train. The defaults are the textbook program's: d_model 512, 8 heads, "
        "6 layers, d_ff 2048, Adam with learning rate 1e-4. The model learns to map each character of "
        "你好世界 to the next one (好世界你).",
    ),
    "train.text": ("训练文本", "Training text"),
    "train.text_help": (
        "模型的词表来自这段文本；目标是每个字的下一个字（末字的下一个是首字）。最多 {max} 个字符。",
        "The vocabulary comes from this text; each character's target is the next one (the last wraps to the first). At most {max} characters.",
    ),
    "train.model_header": ("模型结构", "Architecture"),
    "train.optim_header": ("训练设置", "Training"),
    "train.d_model": ("d_model（隐藏维度）", "d_model (model width)"),
    "train.n_heads": ("n_heads（注意力头数）", "n_heads (attention heads)"),
    "train.n_heads_help": ("只列出能整除 d_model 的头数：d_head = d_model / n_heads。", "Only head counts that divide d_model: d_head = d_model / n_heads."),
    "train.n_layers": ("n_layers（层数）", "n_layers (blocks)"),
    "train.d_ff": ("d_ff（前馈层宽度）", "d_ff (feed-forward width)"),
    "train.max_len": ("max_len（最长上下文）", "max_len (longest context)"),
    "train.lr": ("学习率 lr", "Learning rate lr"),
    "train.epochs": ("训练轮数 epochs", "Epochs"),
    "train.seed": ("随机种子 seed", "Random seed"),
    "train.early_stop": ("提前停止：损失低于", "Early stop: loss below"),
    "train.early_stop_help": ("损失低于此值即停止训练（0 表示不提前停止）。", "Training stops once the loss is below this (0 = never stop early)."),
    "train.params": ("参数量：{n:,}　d_head = {d_head}", "Parameters: {n:,}    d_head = {d_head}"),
    "train.start": ("开始训练", "Train"),
    "train.stop": ("停止", "Stop"),
    "train.waiting": ("排队中：前面还有 {place} 个训练任务（本机只有 2 个核心）。", "Waiting: place {place} in line (this host has 2 cores)."),
    "train.running": ("训练中：第 {step} / {epochs} 步，损失 {loss:.3e}", "Training: step {step} / {epochs}, loss {loss:.3e}"),
    "train.done": (
        "训练完成：{steps} 步，最终损失 {loss:.3e}，用时 {seconds:.1f} 秒（{reason}）。预测页和注意力页现在使用这个模型。",
        "Training finished: {steps} steps, final loss {loss:.3e}, {seconds:.1f} s ({reason}). The Predict and Attention pages now use this model.",
    ),
    "train.reason.epochs": ("达到设定轮数", "all epochs done"),
    "train.reason.early_stop": ("损失已低于提前停止阈值", "loss fell below the early-stop threshold"),
    "train.stopped": ("已停止于第 {steps} 步；之前训练好的模型保持不变。", "Stopped at step {steps}; the model you had before is kept."),
    "train.non_finite": (
        "第 {step} 步的损失变成了 {loss}（学习率 {lr:g} 太大）。训练已停止，之前的模型保持不变。请试试更小的学习率，例如 {suggest:g}。",
        "The loss became {loss} at step {step} (learning rate {lr:g} is too large). Training stopped and your previous model is kept. Try a smaller learning rate such as {suggest:g}.",
    ),
    "train.chart_title": ("训练损失（对数坐标）", "Training loss (log scale)"),
    "train.axis_step": ("步", "step"),
    "train.axis_loss": ("交叉熵损失", "cross-entropy loss"),
    "train.text_too_long": ("训练文本有 {n} 个字符，最多 {max} 个。", "The training text has {n} characters; at most {max} are accepted."),
}
