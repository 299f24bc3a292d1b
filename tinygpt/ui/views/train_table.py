"""The Train page's table of state (``tinygpt.ui.frame.controls``): each setting's key, default (the
seed program's model: the "seed" preset) and lesson label. The form's URL (``form=``, ``trained=``)
is ``tinygpt.ui.train.train_url``: one parameter for the whole form, in the format of a model link."""

from __future__ import annotations

from tinygpt.ui.frame.controls import UNSET, control, defaults_of, table

PAGE = "train"
#: The preset the form last took (no widget owns it).
T_PRESET = "train_preset"
T_TEXT, T_WINDOW, T_D_MODEL, T_N_HEADS = "train_text", "train_window", "train_d_model", "train_n_heads"
T_N_LAYERS, T_D_FF, T_MAX_LEN, T_NORM = "train_n_layers", "train_d_ff", "train_max_len", "train_norm"
T_POSITIONS, T_LR, T_EPOCHS, T_SEED = "train_positions", "train_lr", "train_epochs", "train_seed"
T_EARLY_STOP, T_CAUSAL_MASK = "train_early_stop", "train_causal_mask"
T_PRESETS, T_UPLOAD = "train_presets", "train_upload"
TRAIN = table(
    control(T_PRESETS, UNSET, "train.presets"),
    control(T_D_MODEL, 512, "train.d_model"),
    control(T_N_HEADS, 8, "train.n_heads"),
    control(T_N_LAYERS, 6, "train.n_layers"),
    control(T_D_FF, 2048, "train.d_ff"),
    control(T_MAX_LEN, 128, "train.max_len"),
    control(T_NORM, "pre", "train.norm"),
    control(T_POSITIONS, "learned", "train.positions"),
    control(T_TEXT, "你好世界", "train.text"),
    control(T_WINDOW, 0, "train.window"),
    control(T_LR, 1e-4, "train.lr"),
    control(T_EPOCHS, 1000, "train.epochs"),
    control(T_SEED, 0, "train.seed"),
    control(T_EARLY_STOP, 1e-4, "train.early_stop"),
    control(T_CAUSAL_MASK, True, "train.causal_mask"),
    control(T_UPLOAD, UNSET, "train.upload"),
)
#: The form's presets (one button each): the seed program's model (the page's defaults) and two smaller ones.
SEED = defaults_of(TRAIN)
SMALL = {
    **SEED,
    T_D_MODEL: 64,
    T_N_HEADS: 4,
    T_N_LAYERS: 2,
    T_D_FF: 256,
    T_LR: 1e-3,
    T_EPOCHS: 500,
}
PRESETS = {
    "seed": SEED,
    "small": SMALL,
    "cheat": {
        **SMALL,
        T_TEXT: "你好你世你界",
        T_WINDOW: 4,
        T_MAX_LEN: 16,
        T_LR: 3e-3,
        T_EPOCHS: 300,
        T_EARLY_STOP: 0.0,
    },
}
