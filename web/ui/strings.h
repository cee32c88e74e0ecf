// UI strings: English and Simplified Chinese, keyed by id. One table (VL_UI_STRINGS) so a missing
// translation is a compile error, and the build extracts exactly these characters for the CJK font
// subset (web/CMakeLists.txt reads this file). Component labels are translated by component id in the
// catalogue of the core's messages (ui/messages.h), which is fetched with the font.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "estimate.h"

namespace vl::ui {

enum class Lang { En, Zh };

// X(id, English, 简体中文)
#define VL_UI_STRINGS(X)                                                                                  \
    X(AppTitle, "vramlens", "vramlens")                                                                   \
    X(Tagline, "Will it fit? GPU memory for LLMs", "显存够不够？大模型显存估算")                              \
    X(Setup, "Setup", "设置")                                                                             \
    X(Results, "Results", "结果")                                                                         \
    X(Share, "Share", "分享")                                                                             \
    X(Model, "Model", "模型")                                                                             \
    X(Search, "Search models", "搜索模型")                                                                \
    X(Preset, "Preset", "预设")                                                                           \
    X(CustomModel, "Custom", "自定义")                                                          \
    X(ParamsOnly, "By size", "按参数量")                                                       \
    X(Params, "Parameters", "参数量")                                                                     \
    X(ConfigJson, "config.json", "config.json")                                                          \
    X(ConfigHint, "Paste a Hugging Face config.json here, or drop the file on the page",                  \
      "在此粘贴 Hugging Face 的 config.json，或把文件拖到页面上")                                           \
    X(Import, "Import", "导入")                                                                           \
    X(HubModel, "Hugging Face model", "Hugging Face 模型")                                                \
    X(HubHint, "org/name, org/name@revision or a huggingface.co URL", "org/name、org/name@版本 或 huggingface.co 链接") \
    X(HubToken, "Token (gated or private repos; kept in this tab only)", "令牌（受限或私有仓库；只保存在本标签页）") \
    X(HubImport, "Import from the Hub", "从 Hub 导入")                                                     \
    X(HubWillSend, "Pressing the button sends the repo id to", "按下按钮会把仓库 ID 发送到")                 \
    X(HubFailed, "Import failed", "导入失败")                                                               \
    X(OrPaste, "Offline, without the Hub:", "离线（不经 Hub）：")                  \
    X(Imported, "Imported", "已导入")                                                                     \
    X(Name, "Name", "名称")                                                                               \
    X(Mode, "Mode", "模式")                                                                               \
    X(Training, "Training", "训练")                                                                       \
    X(FineTune, "Fine-tune", "微调")                                                                      \
    X(Inference, "Inference", "推理")                                                                     \
    X(Method, "Method", "方法")                                                                           \
    X(FrameworkProfile, "Framework profile", "配置")                                                      \
    X(CustomNoProfile, "custom (no profile)", "自定义 (无配置)")                                          \
    X(DefaultMark, "default", "默认")                                                                       \
    X(Precision, "Precision", "精度")                                                                     \
    X(Optimizer, "Optimizer", "优化器")                                                                   \
    X(MicroBatch, "Micro-batch", "微批大小")                                                              \
    X(SeqLen, "Sequence length", "序列长度")                                                              \
    X(GradAccum, "Grad accumulation", "梯度累积")                                                         \
    X(Recompute, "Recomputation", "重计算")                                                               \
    X(RecomputeEveryK, "Checkpoint 1 layer in k", "每 k 层保存 1 层检查点")                                \
    X(OffloadCheckpoints, "Offload checkpoints to RAM", "检查点卸载到内存")                                  \
    X(CapacityFactor, "Expert capacity factor (0: dropless)", "专家容量因子（0：不丢弃）")                    \
    X(PadToCapacity, "Pad expert input to capacity", "专家输入填充到容量")                                    \
    X(MoeExperts, "MoE experts (3-D) run as", "MoE 专家（三维参数）的实现")                                     \
    X(TrainSsmKernels, "Mamba mixer runs as (training)", "Mamba 混合器的实现（训练）")                            \
    X(LoraExpertLayers, "LoRA on experts: last MoE layers", "专家 LoRA：最后几个 MoE 层")                    \
    X(FlashAttn, "FlashAttention", "FlashAttention")                                                     \
    X(LoraRank, "LoRA rank", "LoRA 秩")                                                                   \
    X(LoraTargets, "LoRA targets", "LoRA 目标层")                                                         \
    X(WeightFormat, "Weights", "权重格式")                                                                \
    X(KvDtype, "KV cache dtype", "KV 缓存精度")                                                           \
    X(Batch, "Batch (sequences)", "并发序列数")                                                           \
    X(Context, "Context (tokens)", "上下文长度")                                                          \
    X(Engine, "Engine", "推理引擎")                                                                       \
    X(GpuMemUtil, "gpu_memory_utilization", "gpu_memory_utilization")                                    \
    X(Parallelism, "Parallelism", "并行")                                                                 \
    X(Gpu, "GPU", "GPU")                                                                                  \
    X(GpuCount, "GPUs", "GPU 数量")                                                                       \
    X(GpuCountInfer, "GPUs in all (replicas × TP × PP)", "GPU 总数（副本 × TP × PP）")                      \
    X(Replicas, "Replicas, each a whole copy of the model (DP)", "副本数，每份是完整模型 (DP)")              \
    X(GpuMemory, "Memory per GPU", "单卡显存")                                                            \
    X(CustomGpu, "Custom GPU", "自定义 GPU")                                                              \
    X(DataParallel, "Data parallel (DP)", "数据并行 (DP)")                                                \
    X(Zero, "ZeRO / FSDP", "ZeRO / FSDP")                                                                 \
    X(TensorParallel, "Tensor parallel (TP)", "张量并行 (TP)")                                            \
    X(SeqParallel, "Sequence parallel (SP)", "序列并行 (SP)")                                             \
    X(PipelineParallel, "Pipeline parallel (PP)", "流水线并行 (PP)")                                      \
    X(ContextParallel, "Context parallel (CP)", "上下文并行 (CP)")                                        \
    X(ExpertParallel, "Expert parallel (EP)", "专家并行 (EP)")                                            \
    X(OffloadOptimizer, "Offload optimizer to CPU", "优化器卸载到 CPU")                                   \
    X(OffloadParams, "Offload parameters to CPU", "参数卸载到 CPU")                                       \
    X(FsdpVersion, "FSDP version", "FSDP 版本")                                                        \
    X(TorchVersion, "PyTorch release (its NCCL)", "PyTorch 版本（其 NCCL）")                              \
    X(Advanced, "Advanced", "高级")                                                                       \
    X(CudaContext, "CUDA context (GiB)", "CUDA 上下文 (GiB)")                                             \
    X(Fragmentation, "Fragmentation reserve", "碎片预留比例")                                              \
    X(ExpandableSegments, "PyTorch expandable_segments", "显存分配器 expandable_segments")              \
    X(TempBuffers, "Temporary buffers", "临时缓冲区")                                                     \
    X(BucketMB, "All-reduce bucket (MB)", "All-reduce 桶 (MB)")                                           \
    X(BackwardWorking, "Backward working set", "反向传播工作集")                                           \
    X(Compat, "Accounting", "计算口径")                                                                   \
    X(CompatNone, "vramlens (tensor by tensor)", "vramlens（逐个张量）")                                  \
    X(CompatMegatron, "Megatron-LM formula", "Megatron-LM 公式")                                          \
    X(CompatDeepSpeed, "DeepSpeed estimator (model states)", "DeepSpeed 估算器（模型状态）")              \
    X(CompatAccelerate, "accelerate estimate-memory", "accelerate estimate-memory")                      \
    X(ActFormula, "Activation formula", "激活值公式")                                                     \
    X(ActTensorWalk, "tensor walk (default)", "逐张量（默认）")                                           \
    X(ActKorthikanti, "Korthikanti et al. 2022", "Korthikanti 等 2022")                                   \
    X(ActPerLayerBytes, "bytes per layer: 11bsd + 5bhs² + 19bsd", "每层字节：11bsd + 5bhs² + 19bsd")       \
    X(ActPerLayerElements, "elements per layer: (16bsd + 2bhs²)·a", "每层元素：(16bsd + 2bhs²)·a")        \
    X(ActCoefficient, "coefficient: C·L·b·s·h", "系数：C·L·b·s·h")                                        \
    X(ActCoef, "Coefficient C", "系数 C")                                                                 \
    X(Schedule, "Pipeline schedule", "流水线调度")                                                        \
    X(VirtualStages, "Virtual stages per GPU", "每卡虚拟阶段数")                                          \
    X(FirstStageLayers, "Layers on the first stage (0: even split)", "首个阶段的层数（0：均分）")         \
    X(LastStageLayers, "Layers on the last stage (0: even split)", "最后阶段的层数（0：均分）")           \
    X(GpusPerNode, "GPUs per node", "每节点 GPU 数")                                                      \
    X(ZeroInit, "zero.Init (params built partitioned)", "zero.Init（参数分片构建）")                      \
    X(Fp32GradAccum, "fp32 grad accumulation (18 B/param)", "fp32 梯度累积（18 B/参数）")                 \
    X(Fp32GradCopy, "fp32 grad copy at the step (+4 B/param)", "优化器步 fp32 梯度副本（+4 B/参数）")     \
    X(Fp32WeightCopy, "extra fp32 weight copy (+4 B/param)", "额外 fp32 权重副本（+4 B/参数）")           \
    X(StateDtype, "Optimizer state dtype", "优化器状态精度")                                              \
    X(LoraDropout, "LoRA dropout", "LoRA dropout")                                                        \
    X(SaveEmbedding, "Train a copy of embed_tokens (modules_to_save)", "训练 embed_tokens 副本（modules_to_save）") \
    X(SaveLmHead, "Train a copy of lm_head (modules_to_save)", "训练 lm_head 副本（modules_to_save）")    \
    X(Prompt, "Prompt tokens (0 = whole context)", "提示词长度（0 = 整个上下文）")                        \
    X(Images, "Images per sequence", "每个序列的图片数")                                                  \
    X(ImageWidth, "Image width (px)", "图片宽度（像素）")                                                 \
    X(ImageHeight, "Image height (px)", "图片高度（像素）")                                               \
    X(SampleImages, "Images per sample", "每个样本的图片数")                                              \
    X(TrainTargetLen, "Target tokens (decoder; 0 = as the source)", "目标 token 数（解码器；0 = 同源序列）")    \
    X(InferTargetLen, "Generated tokens (decoder; 0 = as the source)", "生成 token 数（解码器；0 = 同源序列）") \
    X(VisionTrains, "Vision tower and projector", "视觉编码器与投影层")                                   \
    X(VisionQuant, "4-bit vision linears", "4 位量化的视觉线性层")                                         \
    X(VisionQuantAll, "tower and projector (bitsandbytes default)", "编码器与投影层（bitsandbytes 默认）")  \
    X(VisionQuantTower, "tower only (Unsloth)", "仅编码器（Unsloth）")                                      \
    X(VisionQuantNone, "neither (16-bit)", "都不量化（16 位）")                                             \
    X(MaxNumSeqs, "max_num_seqs (0 = vLLM's default)", "max_num_seqs（0 = vLLM 默认）")                   \
    X(BlockSize, "KV block size (tokens)", "KV 块大小（token）")                                          \
    X(CudaGraphs, "CUDA graphs", "CUDA Graphs")                                                           \
    X(Speculative, "Speculative decoding (--speculative-config)", "投机解码（--speculative-config）")        \
    X(NumSpecTokens, "Speculative tokens per step", "每步投机 token 数")                                   \
    X(SpecDraftModel, "Draft model (preset id, same vocabulary)", "草稿模型（预设 id，同一词表）")          \
    X(VllmVersion, "vLLM release (vllm --version)", "vLLM 版本（vllm --version）")                         \
    X(Dropout, "Dropout", "Dropout")                                                                      \
    X(Fp32Logits, "fp32 logits", "fp32 logits")                                                          \
    X(LossImpl, "Loss over the logits", "logits 上的损失计算")                                            \
    X(PerGpu, "per GPU", "每卡")                                                                          \
    X(Fits, "Fits", "放得下")                                                                             \
    X(DoesNotFit, "Does not fit", "放不下")                                                               \
    X(Free, "free", "剩余")                                                                               \
    X(Over, "over", "超出")                                                                               \
    X(Peak, "Peak", "峰值")                                                                               \
    X(Component, "Component", "组成部分")                                                                 \
    X(Bytes, "Bytes", "字节")                                                                             \
    X(ShareCol, "Share", "占比")                                                                          \
    X(Formula, "Formula", "公式")                                                                         \
    X(WithNumbers, "With your numbers", "代入数值")                                                       \
    X(Source, "Source", "来源")                                                                           \
    X(ShowMath, "Show the math: tap a row", "查看公式：点开任意一行")                                       \
    X(Phases, "Memory by phase", "各阶段显存")                                                            \
    X(Load, "load", "加载")                                                                               \
    X(Forward, "forward", "前向")                                                                         \
    X(Backward, "backward", "反向")                                                                       \
    X(Step, "step", "优化器步")                                                                           \
    X(Prefill, "prefill", "预填充")                                                                       \
    X(Decode, "decode", "解码")                                                                           \
    X(Sweep, "Memory vs", "显存随变化")                                                                    \
    X(AxisBatch, "batch", "批大小")                                                                       \
    X(AxisSeq, "sequence", "序列长度")                                                                    \
    X(GpuLimit, "GPU limit", "显存上限")                                                                  \
    X(MaxMicroBatch, "max micro-batch", "最大微批")                                                       \
    X(MaxBatch, "max batch", "最大并发")                                                                  \
    X(MaxSeq, "max sequence", "最长序列")                                                                 \
    X(MaxContext, "max context", "最长上下文")                                                            \
    X(NeedsGpus, "needs %lld GPUs", "需要 %lld 张 GPU")                                                    \
    X(NothingFits, "nothing fits", "都放不下")                                                            \
    X(FitsWith, "Fits with one change:", "改一处即可放下：")                                                \
    X(Apply, "Apply", "应用")                                                                             \
    X(Warnings, "Notes", "说明")                                                                          \
    X(Errors, "Fix these inputs", "请修正这些输入")                                                       \
    X(CopyLink, "Copy link", "复制链接")                                                                  \
    X(Copied, "Copied", "已复制")                                                                         \
    X(EmbedSnippet, "Embed in a page", "嵌入网页")                                                        \
    X(EmbedEditable, "Editable embed", "可编辑嵌入")                                                      \
    X(CopySnippet, "Copy snippet", "复制代码")                                                            \
    X(Export, "Export", "导出")                                                                           \
    X(Copy, "Copy", "复制")                                                                               \
    X(Download, "Download", "下载")                                                                       \
    X(Language, "中文", "English")                                                                        \
    X(ThemeIsLight, "Theme: light", "主题：浅色")                                                         \
    X(ThemeIsDark, "Theme: dark", "主题：深色")                                                           \
    X(LinkNotice, "This link could not be read, so the defaults are shown:",                             \
      "无法读取此链接，已显示默认设置：")                                                                  \
    X(LinkKept, "This link could not be read, so your scenario was kept:",                               \
      "无法读取此链接，已保留当前的设置：")                                                                \
    X(TooBig, "%s is %s; at most %s is read (a config.json or a scenario is a few KB: was something else given?). " \
              "Nothing was changed.",                                                                    \
      "%s 有 %s，最多读取 %s（config.json 或场景文件只有几 KB，是不是弄错了文件？）。未做任何更改。")            \
    X(WhatPaste, "The pasted text", "粘贴的文本")                                                        \
    X(WhatDrop, "The dropped file", "拖入的文件")                                                        \
    X(WhatLink, "The link", "链接")                                                                      \
    X(WhatText, "The typed text", "输入的文本")                                                          \
    X(OpenedScenario, "This is a vramlens scenario: opened it.", "这是 vramlens 场景文件：已打开。")         \
    X(OpenedLink, "This is a vramlens link: opened it.", "这是 vramlens 链接：已打开。")                     \
    X(ImportedConfig, "This is a config.json: imported the model", "这是 config.json：已导入模型")          \
    X(ScenarioFailed, "This is a vramlens scenario, but it could not be opened (nothing was changed):",   \
      "这是 vramlens 场景文件，但无法打开（未做任何更改）：")                                              \
    X(ConfigFailed, "This is a config.json, but it could not be imported (the model was kept):",          \
      "这是 config.json，但无法导入（模型未更改）：")                                                      \
    X(NotRecognised, "This is neither a vramlens link, a scenario nor a config.json (nothing was changed):", \
      "这既不是 vramlens 链接、场景文件，也不是 config.json（未做任何更改）：")                              \
    X(Dismiss, "OK", "好的")                                                                              \
    X(OpenFull, "Open in vramlens", "在 vramlens 中打开")                                                 \
    X(Host, "host", "主机内存")                                                                           \
    X(Total, "Total", "合计")                                                                             \
    X(Categories, "By category", "按类别")                                                                 \
    X(None, "none", "无")                                                                                 \
    X(Layers, "layers", "层")                                                                             \
    X(Heads, "heads", "头")                                                                               \
    X(Hidden, "hidden", "隐藏维度")                                                                       \
    X(KvHeads, "KV heads", "KV 头")                                                                       \
    X(Ffn, "FFN size", "FFN 维度")                                                                        \
    X(Vocab, "vocab", "词表")                                                                             \
    X(HeadDim, "head dim", "头维度")                                                                      \
    X(Experts, "experts", "专家数")                                                                       \
    X(TopK, "top-k", "top-k")                                                                             \
    X(ExpertFfn, "expert FFN", "专家 FFN")                                                                \
    X(TiedEmb, "tied embeddings", "共享词嵌入")                                                           \
    X(GatedMlp, "gated MLP (SwiGLU)", "门控 MLP (SwiGLU)")                                                \
    X(Family, "Family", "系列")                                                                           \
    X(AllFamilies, "All families", "全部系列")                                                            \
    X(NoMatch, "No model matches", "没有匹配的模型")                                                     \
    X(ModelListLoading, "Loading the model list...", "正在加载模型列表…")                                 \
    X(ModelListFailed, "The model list could not be loaded (%s): only the models shown can be chosen.",   \
      "模型列表无法加载（%s）：只能选择已显示的模型。")                                                    \
    X(WaitingForModels, "Opening it once the model list has loaded...", "模型列表加载后将打开它…")       \
    X(Retry, "Retry", "重试")                                                                             \
    X(RunLocally, "Run locally", "本地运行")                                                              \
    X(Machine, "Machine", "机器")                                                                         \
    X(PcGpus, "PC with GPUs", "PC（独立 GPU）")                                                           \
    X(AppleMac, "Apple Silicon Mac", "Apple Silicon Mac")                                                 \
    X(AddGpu, "Add GPU", "添加 GPU")                                                                      \
    X(Remove, "Remove", "移除")                                                                           \
    X(SystemRam, "System RAM (GiB)", "系统内存 (GiB)")                                                    \
    X(UnifiedRam, "Unified memory (GiB)", "统一内存 (GiB)")                                               \
    X(AppleChip, "Chip", "芯片")                                                                          \
    X(WiredLimit, "iogpu.wired_limit_mb (0 = default)", "iogpu.wired_limit_mb（0 = 默认）")               \
    X(MaxModelLen, "Max model length (0 = the model's)", "最大模型长度（0 = 模型自身）")                  \
    X(Device, "Device", "设备")                                                                           \
    X(LayersCol, "Layers", "层")                                                                          \
    X(WeightsCol, "Weights", "权重")                                                                      \
    X(KvCol, "KV cache", "KV 缓存")                                                                       \
    X(ComputeCol, "Compute", "计算缓冲")                                                                  \
    X(Capacity, "Capacity", "容量")                                                                       \
    X(LargestContext, "Largest context that fits", "能放下的最长上下文")                                  \
    X(Speed, "Speed", "速度")                                                                             \
    X(Launch, "Launch", "启动命令")                                                                       \
    X(AdvancedPlacement, "Advanced placement", "高级放置")                                                \
    X(NglField, "Layers on the GPUs, -ngl (-1 = the most that fit)", "放在 GPU 上的层数 -ngl（-1 = 尽量多）")    \
    X(NCpuMoe, "MoE experts kept on the CPU, --n-cpu-moe (layers)", "留在 CPU 的 MoE 专家层数 --n-cpu-moe")    \
    X(TensorSplitField, "Tensor split, one number per GPU (empty = by memory)", "张量切分，每个 GPU 一个数（空 = 按显存）") \
    X(SplitModeField, "Split mode", "切分模式")                                                           \
    X(MainGpu, "Main GPU (split mode none)", "主 GPU（切分模式 none）")                                   \
    X(UbatchField, "Micro-batch, -ub", "微批 -ub")                                                        \
    X(KvInRam, "KV cache in system RAM (-nkvo)", "KV 缓存放在系统内存 (-nkvo)")                           \
    X(MmprojMib, "Vision projector, MiB (0 = none)", "视觉投影器 MiB（0 = 无）")                          \
    X(MmprojInRam, "Projector in system RAM (--no-mmproj-offload)", "投影器放在系统内存 (--no-mmproj-offload)") \
    X(MmprojPick, "Read the projector's mmproj .gguf...", "读取投影器的 mmproj .gguf...")                      \
    X(ImageMaxTokens, "Largest image, tokens (--image-max-tokens; 0 = the load-time image)", "视觉输入最大 token 数 (--image-max-tokens；0 = 加载时的大小)") \
    X(VisionCol, "Vision", "视觉")                                                                        \
    X(TpField, "Tensor-parallel size (0 = chosen)", "张量并行数（0 = 自动）")                             \
    X(PpField, "Pipeline-parallel size (0 = chosen)", "流水线并行数（0 = 自动）")                         \
    X(AddCustomGpu, "Add a GPU not listed", "添加未列出的 GPU")                                           \
    X(CustomGpuTitle, "GPU not listed", "未列出的 GPU")                                                   \
    X(MemoryGib, "Memory (GiB)", "显存 (GiB)")                                                            \
    X(BandwidthGbs, "Memory bandwidth (GB/s)", "显存带宽 (GB/s)")                                          \
    X(Fp16Tflops, "FP16 TFLOP/s (0 = not known)", "FP16 TFLOP/s（0 = 未知）")                              \
    X(RankTitle, "Which model fits best on this machine", "这台机器最适合哪个模型")                       \
    X(RankButton, "Rank the models", "为模型排名")                                                        \
    X(RankAgain, "The machine changed: rank again", "机器已更改：重新排名")                               \
    X(RankNone, "No model runs at this context and speed", "在此上下文和速度下没有可运行的模型")          \
    X(RankOrder, "Order: more parameters, then less quantization loss (llama.cpp's KL divergence), then speed; a proxy, not a benchmark",          \
      "排序：参数更多者优先，其次量化损失更小（llama.cpp 的 KL 散度），再次速度更快；这是近似指标，不是基准测试") \
    X(Use, "Use", "使用")                                                                                 \
    X(CompareTitle, "Compare models, formats and machines", "比较模型、格式和机器")                       \
    X(CompareOpen, "Compare", "比较")                                                                     \
    X(CompareAgain, "Compare again", "重新比较")                                                          \
    X(CompareStale, "The inputs changed since this grid was computed", "输入已更改，此表格已过时")        \
    X(CompareModels, "Models", "模型")                                                                    \
    X(CompareAddModel, "Add a model", "添加模型")                                                         \
    X(CompareCurrent, "This model", "当前模型")                                                           \
    X(CompareMachines, "Machines", "机器")                                                                \
    X(CompareAddMachine, "Add this machine", "添加这台机器")                                              \
    X(CompareModelWeights, "Model, weights", "模型，权重")                                                \
    X(CompareNote, "Each cell: -ngl (layers on the GPUs / layers + output), the largest context at it, decode tok/s (± the held-back error, median-worst; docs/speed.md)", \
      "每格：-ngl（GPU 上的层数 / 层数 + 输出层）、该设置下能放下的最长上下文、解码速度 tok/s（± 留出集误差，中位数-最差；docs/speed.md）")

enum class S {
#define VL_UI_STRING_ID(id, en, zh) id,
    VL_UI_STRINGS(VL_UI_STRING_ID)
#undef VL_UI_STRING_ID
    Count_
};

// The text of a string id in a language. In the page (Emscripten) the Chinese column is not compiled
// in: it comes with the Chinese font in the catalogue (cmake/zh_ui_strings.py, set_zh_strings), and
// until it has, tr(Lang::Zh, ...) gives the English. Native builds (tests, prerender) have both.
const char* tr(Lang lang, S id);
// The Chinese column as read from the catalogue (MessageCatalogue::ui_strings), by S index.
void set_zh_strings(std::vector<std::string> zh);

const char* category_label(Lang lang, Category c);
// Readable names for the core enums whose JSON names say little to a reader ("none", "1f1b").
// Other enums show their JSON names (enum_names.h): "bf16-mixed", "q4_k_m".
const char* enum_label(Lang lang, Compat v);
const char* enum_label(Lang lang, ActivationFormula v);
const char* enum_label(Lang lang, PipelineSchedule v);
const char* enum_label(Lang lang, VisionQuant v);
// Phase names follow the mode (inference: prefill/decode), as core/export.h phase_label does.
const char* phase_name(Lang lang, Mode mode, Phase p);

}  // namespace vl::ui
