"""Strings shared by every page: app title, navigation, language switch, model status, errors."""

STRINGS: dict[str, tuple[str, str]] = {
    "app.title": ("Tiny GPT 探索器", "Tiny GPT Explorer"),
    "app.language": ("语言 / Language", "Language / 语言"),
    "app.lang_refused": (
        "网址中的 lang={value} 不是本应用的语言（可用：{accepted}），已按浏览器设置显示。",
        "lang={value} in the address is not a language of this app (accepted: {accepted}); showing the browser's language.",
    ),
    "nav.train": ("训练", "Train"),
    "nav.predict": ("预测", "Predict"),
    "nav.attention": ("注意力九步", "Attention, step by step"),
    "nav.theory": ("原理", "Theory"),
    "model.default": (
        "正在使用默认模型（种子设置：文本“{text}”，{steps} 步，最终损失 {loss:.2e}）。",
        "Using the default model (seed settings: text “{text}”, {steps} steps, final loss {loss:.2e}).",
    ),
    "model.train_hint": ("到“训练”页可训练你自己的模型。", "Train your own on the Train page."),
    "model.with_hint": ("{line}{hint}", "{line} {hint}"),
    "model.own": (
        "正在使用你的模型（你训练或载入的：文本“{text}”，{steps} 步，最终损失 {loss:.2e}）。",
        "Using your model (trained or loaded by you: text “{text}”, {steps} steps, final loss {loss:.2e}).",
    ),
    "model.preparing": (
        "默认模型（你好世界 → 好世界你）正在后台训练，几秒后即可在预测和注意力页使用。",
        "The default model (你好世界 → 好世界你) is being trained in the background; the Predict and Attention pages can use it in a few seconds.",
    ),
    "model.loading": ("首次使用：正在训练默认模型（约数秒，只需一次）…", "First visit: training the default model (a few seconds, once)…"),
    "model.training_running": (
        "你的训练仍在后台进行（第 {step} 步）；本页使用最近一个训练完成的模型。",
        "Your training is still running in the background (step {step}); this page uses the latest finished model.",
    ),
    "model.training_paused": (
        "你的训练已暂停（第 {step} 步）；本页使用最近一个训练完成的模型。",
        "Your training is paused (step {step}); this page uses the latest finished model.",
    ),
    "err.unknown_chars": (
        "词表中没有这些字符：{unknown}。本模型认识的字符：{known}",
        "These characters are not in the vocabulary: {unknown}. The model knows: {known}",
    ),
    "err.empty_text": ("请输入至少一个字符。", "Please enter at least one character."),
    "err.config": (
        "设置 {field} = {value} 不可用：{accepted}",
        "The setting {field} = {value} is not accepted: {accepted}",
    ),
    "err.unexpected": (
        "出了意外的问题：{error}。已训练的模型没有丢失，请调整输入后重试。",
        "Something unexpected went wrong: {error}. Nothing trained was lost; adjust the input and try again.",
    ),
    "accepted.int_range": ("{lo} 到 {hi} 之间的整数", "an integer from {lo} to {hi}"),
    "accepted.window_or_whole": ("0（整段文本）或 1 到 {hi} 之间的整数", "0 (the whole text) or an integer from 1 to {hi}"),
    "accepted.choice": ("以下之一：{options}", "one of: {options}"),
    "accepted.even": ("使用正弦位置编码时须为偶数", "an even number with sinusoidal positions"),
    "accepted.max_params": ("参数总数不超过 {limit}（本机资源有限）", "at most {limit} parameters on this host"),
    "accepted.lr": ("大于 0 且不超过 1 的数", "a number greater than 0 and at most 1"),
    "accepted.float_range": ("{lo} 到 {hi} 之间的数", "a number from {lo} to {hi}"),
    "accepted.divisor": ("d_model={d_model} 的约数，例如 {examples}", "a divisor of d_model={d_model}, e.g. {examples}"),
}
