"""nn.Transformer, nn.TransformerEncoder/Decoder(Layer): eval-mode outputs, input gradients and
parameter gradients RECORDED from PyTorch 2.13 with the same weights (built from np.random.default_rng
by state_dict order, loaded into both libraries; the recorder ran these same case functions with
lib=torch), causal and key-padding masks (bool and float), batch_first, norm_first, activations,
unbatched input, state_dict keys, the causal mask helper and detection, a training step, errors."""
import warnings

import numpy as np
import pytest

import nbgrad

nn = nbgrad.nn
F = nbgrad.nn.functional


def load_weights(lib, module, seed, dtype):
    rng = np.random.default_rng(seed)
    sd = {}
    for name, p in module.state_dict().items():
        w = rng.standard_normal(tuple(p.shape)) * 0.4
        if name.endswith("norm1.weight") or name.endswith("norm2.weight") or name.endswith("norm3.weight") \
                or name.endswith("norm.weight"):
            w = 1.0 + w * 0.5
        sd[name] = lib.tensor(w, dtype=dtype)
    module.load_state_dict(sd)
    return module


def arr(lib, rng, shape, dtype):
    return lib.tensor(rng.standard_normal(shape), dtype=dtype)


def cases(lib):
    nn = lib.nn
    f64 = lib.float64
    out = {}
    rng = np.random.default_rng(100)
    # 1: encoder stack, sequence first, causal float mask (detected), key padding, final norm
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, dtype=f64), 2,
                                norm=nn.LayerNorm(8, dtype=f64), enable_nested_tensor=False)
    load_weights(lib, enc, 1, f64).eval()
    src = arr(lib, rng, (5, 3, 8), f64)
    pad = lib.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
    out["encoder_causal_padding"] = enc(src, mask=nn.Transformer.generate_square_subsequent_mask(5, dtype=f64),
                                        src_key_padding_mask=pad)
    # 2: one encoder layer, batch_first, norm_first, gelu by name, key padding only
    layer = nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", batch_first=True, norm_first=True, dtype=f64)
    load_weights(lib, layer, 2, f64).eval()
    src = arr(lib, rng, (3, 5, 8), f64)
    out["encoder_layer_norm_first_gelu"] = layer(src, src_key_padding_mask=pad)
    # 3: a decoder layer, batch_first, bool causal tgt mask, memory key padding, no bias
    dec = nn.TransformerDecoderLayer(8, 2, 16, batch_first=True, bias=False, dtype=f64)
    load_weights(lib, dec, 3, f64).eval()
    tgt = arr(lib, rng, (2, 4, 8), f64)
    mem = arr(lib, rng, (2, 5, 8), f64)
    causal_bool = lib.ones(4, 4, dtype=lib.bool).triu(1)
    mpad = lib.tensor([[False] * 5, [False] * 2 + [True] * 3])
    out["decoder_layer_bool_mask"] = dec(tgt, mem, tgt_mask=causal_bool, memory_key_padding_mask=mpad)
    # 4: the full Transformer, sequence first, every mask
    tr = nn.Transformer(8, 2, 2, 2, 16, dtype=f64)
    load_weights(lib, tr, 4, f64).eval()
    src = arr(lib, rng, (5, 2, 8), f64)
    tgt = arr(lib, rng, (4, 2, 8), f64)
    spad = lib.tensor([[False] * 5, [False] * 3 + [True] * 2])
    tpad = lib.tensor([[False] * 4, [False] * 3 + [True]])
    out["transformer_masks"] = tr(src, tgt, tgt_mask=tr.generate_square_subsequent_mask(4, dtype=f64),
                                  src_key_padding_mask=spad, tgt_key_padding_mask=tpad,
                                  memory_key_padding_mask=spad)
    # 5: Transformer, batch_first, norm_first, a callable activation, explicit is_causal, memory mask, float32
    tr = nn.Transformer(8, 4, 1, 2, 12, activation=lib.tanh, batch_first=True, norm_first=True,
                        layer_norm_eps=1e-3)
    load_weights(lib, tr, 5, lib.float32).eval()
    src = arr(lib, rng, (2, 3, 8), lib.float32)
    tgt = arr(lib, rng, (2, 4, 8), lib.float32)
    mmask = lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32)
    out["transformer_float32_norm_first"] = tr(src, tgt, tgt_mask=tr.generate_square_subsequent_mask(4),
                                               tgt_is_causal=True, memory_mask=mmask)
    # 6: unbatched input through an encoder layer and a decoder layer
    layer = nn.TransformerEncoderLayer(8, 2, 16, dtype=f64)
    load_weights(lib, layer, 6, f64).eval()
    src = arr(lib, rng, (5, 8), f64)
    out["encoder_layer_unbatched"] = layer(src, src_mask=nn.Transformer.generate_square_subsequent_mask(5, dtype=f64),
                                           is_causal=True)
    return out


# ---- recorded from PyTorch 2.13 (torch.no_grad, eval mode) ----
RECORDED = {
    'encoder_causal_padding': ((5, 3, 8), [-1.2568148275627882, -0.6178725710596185, -0.942246889080549,
        0.4910922630887374, -0.0023800506754564094, 1.4033553651719832, -1.1757488707535833, 1.1892162969405498,
        -0.27098039370838195, 0.09370507355136568, 1.941830931064201, -0.7731586727748775, 0.49047171012705015,
        -0.6359027232180642, -0.17374917181841215, -1.3345895544970956, -0.3745735271809174, 0.005093462106392609,
        1.9603864429577629, -0.7026182028369619, 0.4586861386312366, -0.3081304702719187, -0.20656721995049254,
        -1.4477755073604777, -0.6748089418183684, -0.3086007510098231, 1.9400534341188107, -0.5215987684521675,
        0.362028672921837, -0.3191717822696158, 0.20971674688484374, -1.3175936216983246, -0.4289915964510156,
        0.026354849779198067, 1.6548854660109398, -0.47774408586230294, 0.5326591811343138, 0.17169150110662929,
        -0.2649857356011508, -1.8584468160122916, -1.4685747920202814, -0.04095410309113549, -0.5207678389655941,
        0.6983676038018629, 0.2216561889161205, 1.7288376709301954, -0.47428991822282457, -1.057189760367769,
        -0.6129586720837572, -0.7216649973470927, 1.8153906775473712, -0.3710246922399101, 0.7709857378558153,
        -0.5081867155627037, 0.15930456503482002, -1.301932788907125, -0.7838422255299495, -0.5326066083888955,
        -0.34434449248017573, -0.15734159217847124, 0.2505334173267127, 2.215022065067726, 0.32073352429060636,
        -1.4840750167085504, -2.018800142644865, 0.7774909515890082, 0.39805360232985054, 0.32645662808587944,
        0.46412989048736397, 0.17304766752571546, -0.9905848502854719, -0.2231625890861893, -1.5314095782371504,
        -0.19964276664178482, 0.588916120575291, 0.7092788758934426, 0.601136783998796, 0.18229294447718938,
        -0.016395739368973445, -1.4392585232539221, -1.900612728446208, -0.5326341706317164, 0.0030775638428811557,
        1.043310460131558, 0.21946765305999258, 0.31434574596440096, -0.46794279174895786, 0.14240069621871013,
        -0.6372625926659042, -0.4728097882411633, 1.7794758843703258, -0.26909628981794653, 0.40039816399731826,
        0.3077056581765837, -0.045081069232586125, -1.6758442804528535, -0.6305300429980556, 0.16553453288854625,
        0.5346580567526021, -0.04717890342173788, 1.0309576314858888, -0.5055087857871781, 0.3833440516580841,
        -2.0186515235840687, -1.3296181520938386, 0.04740534670896792, -0.8745334305657939, 0.6525367115905047,
        0.19112401453134079, 1.822533899325909, -0.3635515891073516, -1.0627356463281101, -2.0222033793456395,
        -0.05143522793927318, -0.5811275615460632, 0.6979505710059224, 0.6072724407793622, 0.42546681291389254,
        0.2037473048137503, -0.48770705416229415]),
    'encoder_layer_norm_first_gelu': ((3, 5, 8), [-0.3778495985532144, 4.515768735210608, -1.2584084162420859,
        0.5126413687462187, -2.6939532176735748, -0.7466581313378124, -1.8564184017028835, 1.6913253549181533,
        -1.5347954039973744, -0.949334735880009, -2.299604663197721, -1.280086100225954, -2.0951790895340436,
        -0.5440249281122904, -2.293706285874552, -3.9037347396053472, 2.2046134926663794, 3.361060078110172,
        1.2477653810869458, 0.3334076360563173, -0.9889272883507493, 1.5756560960662331, -1.9149082990406232,
        0.05782341441579364, -0.6150082918061421, 1.4228633462602986, 1.409104493329536, -0.6429070001935694,
        1.416478993320752, 0.9533427794629549, -1.8395993133639845, -1.4182573313655842, 0.03102785033824018,
        3.297275731755641, -0.7472264194189427, -0.8458627363682165, -2.4127301325149255, 1.6850868097039347,
        -0.9213413901075987, 2.1645132777990805, -3.007544353597928, 2.010207643261779, 0.3446351585994808,
        -4.780265332606194, 0.9627944934046194, -0.2960643101174256, -3.9606076741311447, -0.4830492599714935,
        -0.4427748869407368, 2.2082090904529164, -1.224833484993987, -2.3728854714820224, -3.207145281219636,
        1.340330792888861, -2.29218806404627, -3.069604783453057, -1.6964796471133565, 2.5941721210405033,
        -2.294394196335908, -1.3016960645539304, -2.279993023119658, 0.1701103859665165, -2.201861306839596,
        0.08561306995027995, 0.6419476564885908, 0.2721510553167861, 0.01612466340346419, -1.531047787026688,
        -2.4351759759359446, 2.5905166490335363, -1.2739062239295083, -2.1584977025972583, 1.684815920212181,
        -1.4138997553075734, -0.5159360284251289, -4.205742922299474, -1.8476894837771802, 2.1806356182405136,
        -1.3116214960894321, -2.5224609964997926, -1.6465751312348824, 2.8077266904020517, -2.7074621603453197,
        -0.7897814204586906, -4.212425018049776, 0.02409513752842063, -1.4065757714845653, -0.9344163180101726,
        -0.7007423018957487, 0.144069936069667, -1.6541908405425418, -3.569894602558769, -0.24398632450857038,
        1.008621239641766, -2.822944514866072, -0.7859383130169438, -2.9204291858974316, 1.3695768381276276,
        0.6967325433762915, -2.7611278230337595, -0.008554828066547948, 0.28105810655345653, -4.000012791102967,
        -3.124747569882785, -1.8687181490882625, 1.455631681949378, -0.8188278909406512, -1.4188796647826707,
        -3.330612785012449, -0.22626872592169311, -1.3531819913633338, -0.7358340067372952, -1.9908803879080588,
        0.9353025461427117, 0.2951713694100291, -3.1075340069145967, -1.2794397314981918, -0.7661536555368562,
        -3.646498609808396, -1.300455128138606]),
    'decoder_layer_bool_mask': ((2, 4, 8), [-1.454091899474038, -0.22266013149178518, -0.5171457117198028,
        1.7363070438593753, 0.26370462382307147, -1.5645756097675518, 0.7895409048840087, 0.7284797748983103,
        -0.17711746712581294, 0.11602921558295518, 0.3005736552715768, 1.9373978790938262, -1.259304973280855,
        -1.7648365904625336, 0.45928235804608164, 0.13865844499708865, -1.639377048675981, -0.14695521137863246,
        0.16340159287275946, 1.8182635991820084, -1.6311285215321585, 0.4243689632259033, 0.6564300666472999,
        0.0470880666060356, 0.3169398309639989, -0.028710621299489914, -0.3949305569166508, -0.6380669953371306,
        1.7766793902598963, -1.8133204624222927, -0.34353188942701735, 1.036500903548673, -0.9653261734141685,
        1.0873231948426667, -0.564108439542622, 1.643724086561113, 0.24331146115090965, -1.8736514417691046,
        0.7505121348240686, -0.14438813221251337, 0.805487062576446, 0.48541719503073516, 0.4471961242284967,
        0.21225833890539192, -2.563233658879389, -0.22306509191670956, 0.6231067685919058, 0.23755777269534908,
        0.3127779709057252, 0.8510253485627564, 0.34344512259466825, 0.10604433476594505, -1.6654387760489662,
        -1.8647571829744656, 0.8506658647053943, 0.8786015765256824, -0.9664244501019492, 0.7364567160163692,
        0.25455354166084454, 0.8067107576131749, -2.31143845017087, 0.49244493525575944, 0.9443076103703071,
        -0.02600736719325377]),
    'transformer_masks': ((4, 2, 8), [-0.24279282215970618, -1.5719836660805486, 1.0234505318517695,
        -1.348606756985183, 0.5235136096368204, 0.6255781165979589, 0.5384247760864621, -1.0530818079873094,
        0.2730108612115201, -0.8270927253720918, 0.5742943487526078, -1.0635922283112873, 0.9276913593741138,
        1.357953805721997, -0.6393655354522509, -1.1407927632317874, -0.024166682751234157, -1.1031490239376704,
        1.1511578507731195, -1.2527717958795699, 1.0851791965029092, 0.04497475101871603, -0.1130736295292728,
        -0.8347710226188522, 0.2761457255506915, -0.829430015836134, 0.6396285191778068, -0.9893762306629025,
        0.8563178387517131, 1.3118836782761076, -0.6619423967728942, -1.1344175104510137, -0.20266644432750971,
        -0.9069524020206226, 0.8105645078827867, -1.0888876243931551, 1.0740339428828172, 1.059964829967281,
        -0.40100899106891075, -1.1066252723820198, 0.23951727973328268, -1.0813043145405736, 0.754317518177079,
        -1.054688812121184, 0.8284006098038977, 1.2870139442974453, -0.49202291647106866, -1.164896493079592,
        -0.14944409253802407, -1.0791511802711575, 0.8948676602838831, -1.2742978127805327, 0.9510782711137802,
        1.0735186693877121, -0.20810712404685924, -1.1289023310156543, 0.45070728924407777, -1.2065386524627257,
        0.814574328406838, -1.1679939829637787, 0.7522822798984258, 1.2260759083479946, -0.4437867419742728,
        -1.1549546034782003]),
    'transformer_float32_norm_first': ((2, 4, 8), [-0.013162622228264809, -1.1300451755523682, 0.13921542465686798,
        1.4616979360580444, 1.6464858055114746, -0.4563545286655426, -0.2541448473930359, 0.9526765942573547,
        0.3760881721973419, -1.1438722610473633, 0.4327331483364105, -0.29546958208084106, 1.945284366607666,
        -0.22292035818099976, -0.23521709442138672, 0.9395648241043091, 0.5771199464797974, -1.1850297451019287,
        0.31516069173812866, -0.09844139218330383, 1.8745208978652954, -0.17095571756362915, -0.43013402819633484,
        0.9471513032913208, 0.6606100797653198, -1.5662940740585327, 0.21333247423171997, 0.9438884258270264,
        1.496944785118103, -0.412824422121048, 0.332933634519577, 0.5756456255912781, 0.14015552401542664,
        1.7306522130966187, 0.7541802525520325, -1.4260448217391968, -1.1661615371704102, 1.632635235786438,
        0.19872920215129852, -0.2219400703907013, 1.4916865825653076, 0.3308511972427368, 0.17017877101898193,
        -1.9145548343658447, -0.2679825723171234, 0.8412378430366516, 0.8236402273178101, 0.1389700025320053,
        1.6409947872161865, -0.4911649823188782, -0.03157907724380493, -0.7990390062332153, 0.21145373582839966,
        -0.07248499989509583, 1.1991533041000366, 0.26594579219818115, 0.9824055433273315, 1.1446806192398071,
        0.3579159080982208, -0.503115713596344, -2.290658950805664, 0.5475603342056274, -0.2512485682964325,
        0.9781647324562073]),
    'encoder_layer_unbatched': ((5, 8), [-1.4239204418176545, 0.35862872333789186, -0.5712114394609498,
        0.6798393005312905, 0.45969765371867544, 0.27091682053878147, -1.6252433621901836, 0.9495502900232123,
        -1.5174389276391673, 0.44457177673090187, -0.17769262073134454, 0.023470391590472157, 0.6432396891268115,
        0.6846005042496459, -1.9310948843043583, 0.9551353643556533, -1.3489510447849182, 0.7233919710004024,
        0.322537735659164, 0.823971596038147, -0.4860631112031776, 0.1769833141354072, -1.8197493186906617,
        0.6467387068175047, 0.4956571568595095, 0.01705923426073209, 0.14979217591775962, 0.9339933186039351,
        -1.687949647485094, 0.15896405238059183, -0.20339022383798147, -0.2836596817783734, -0.3189392548856699,
        0.4222013427084124, -0.0643303460635216, 1.4136425068893481, -1.3816539466073843, -0.38048667311977685,
        -0.3316652084605805, -0.09024017654916587]),
}
GRAD_SRC = [0.05400362094825205, 0.049900775396146665, -0.027140505037829957, -0.02796870912319286,
    0.044664852366665904, 0.01490085473008157, 0.025980898147050478, -0.045664576194884836, 0.5336959136167778,
    -0.600817853043593, -0.1469389991896094, -0.06897942324364084, -0.11369838280791073, -0.6656046917834859,
    -0.5440593663362426, 0.7412373117928768, 0.03914201409868458, 0.03586989157893125, 0.0025429744789241884,
    -0.038247227200449575, 0.0662141055786387, 0.04147914117962302, -0.02925815717775362, -0.014784541506142713,
    -0.027503021632241977, -0.020866528454121763, 0.37631957999420573, 0.12095804952779116, 0.05932602458753836,
    0.015417661064924523, -0.22378956403765016, -0.057474123963682545, 0.009807037539885474, 0.04605777866552546,
    -0.018188299433120492, -0.006585463205441114, 0.033439091783538356, 0.027113551536111433, -0.015133761525859244,
    -0.024843423032522648, -0.4630448989316923, -0.4736094455394848, -0.0338005833062634, 0.8134866020845886,
    0.12096699217344387, -0.5426212635969679, -0.48009320678071055, 0.4482614582765041, 0.05154664475398449,
    0.044575898864868124, -0.021535718006220117, -0.021626716120376165, 0.0349714492093128, 0.028038079089062626,
    0.02004129305320581, -0.015458942004515275, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.04824045531211403,
    0.02456612428712627, -0.02590261068728099, -0.04729208925199027, 0.030311627601314783, -0.0014213312862406567,
    0.019056335407389203, -0.017390596701706305, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
GRAD_TGT = [-0.357315440739921, -0.08398979657819339, -0.05443106963150733, -0.20897053658406034, 0.05419071415441958,
    0.3717707829407211, -0.17746830295632496, -0.2459207287773207, -0.30404513954558143, -0.29975229238995765,
    -2.7564154138309265, 0.61414064846083, 0.021577851100260337, 1.0922430786007673, 0.07050372186446197,
    0.38188293315922217, -0.2508976216684259, 0.059556295202198656, 0.059013893147831745, 0.0819213177384664,
    0.15277053046017713, 0.15110773328726854, -0.12576240234347869, -0.08077502543818707, 0.14677792534437442,
    0.02617475489669301, -0.0006281010117120886, -0.030381911073548665, 0.04085030871293453, -0.1002366362139907,
    -0.07684186683025869, 0.04246602147476465, 0.1719382216063486, -0.08380866790269095, 0.04007461783072548,
    -0.07870149753794732, -0.14632110429995876, 0.029569854559460762, -0.021803780146038437, -0.09761716693143728,
    -0.10008836941503566, 0.12189860886357086, 0.0257037201593614, 0.023069907374682015, -0.0035651878526008485,
    -0.07297665146643607, 0.08414249223962297, 0.1878434563874385, 0.05564028739680999, 0.0018145189582944254,
    0.017940618360891166, -0.012236168880503499, -0.0026776837075581355, -0.04558807172812788, 0.040966024364413045,
    -0.039932534125142506, -0.21013614579987847, 0.04047735238593563, 0.006226811374368028, 0.13711646015854917,
    0.05411200651691285, 0.03149225894308866, -0.013141602578141884, 0.05381640587299444]
GRAD_PARAM_DOTS = {
    'encoder.layers.0.self_attn.in_proj_weight': -2.348132071809581,
    'encoder.layers.0.self_attn.in_proj_bias': 3.0056633724689155,
    'encoder.layers.0.self_attn.out_proj.weight': -0.7554885598743509,
    'encoder.layers.0.self_attn.out_proj.bias': 3.896441920566772,
    'encoder.layers.0.linear1.weight': -3.5663764606456936,
    'encoder.layers.0.linear1.bias': -0.3085042478726849,
    'encoder.layers.0.linear2.weight': -1.8574833509084114,
    'encoder.layers.0.linear2.bias': -0.02945851486073839,
    'encoder.layers.0.norm1.weight': -0.9109740382801907,
    'encoder.layers.0.norm1.bias': 0.5133630803299524,
    'encoder.layers.0.norm2.weight': 0.28956471281925344,
    'encoder.layers.0.norm2.bias': -3.6410634879305883,
    'encoder.layers.1.self_attn.in_proj_weight': -3.3572696940791618,
    'encoder.layers.1.self_attn.in_proj_bias': -2.29517338214504,
    'encoder.layers.1.self_attn.out_proj.weight': 1.1239679195646746,
    'encoder.layers.1.self_attn.out_proj.bias': -1.2579874973340162,
    'encoder.layers.1.linear1.weight': -0.20507327565889355,
    'encoder.layers.1.linear1.bias': 1.6732974631701485,
    'encoder.layers.1.linear2.weight': -3.6434056067123253,
    'encoder.layers.1.linear2.bias': 1.1925377757778959,
    'encoder.layers.1.norm1.weight': 1.084519604429751,
    'encoder.layers.1.norm1.bias': -0.46476627641873963,
    'encoder.layers.1.norm2.weight': -0.3668800256824827,
    'encoder.layers.1.norm2.bias': -1.1018218403747153,
    'encoder.norm.weight': -0.7936028444422581,
    'encoder.norm.bias': 3.1256173874537145,
    'decoder.layers.0.self_attn.in_proj_weight': -5.462025336554374,
    'decoder.layers.0.self_attn.in_proj_bias': 3.3573196763217186,
    'decoder.layers.0.self_attn.out_proj.weight': 3.1814684353351135,
    'decoder.layers.0.self_attn.out_proj.bias': 3.282418284743917,
    'decoder.layers.0.multihead_attn.in_proj_weight': -2.6643090091275834,
    'decoder.layers.0.multihead_attn.in_proj_bias': 1.0530257597727954,
    'decoder.layers.0.multihead_attn.out_proj.weight': 2.522959046477891,
    'decoder.layers.0.multihead_attn.out_proj.bias': -0.4927724647502122,
    'decoder.layers.0.linear1.weight': -7.164788206787694,
    'decoder.layers.0.linear1.bias': -1.2777980410327952,
    'decoder.layers.0.linear2.weight': 5.626404195628508,
    'decoder.layers.0.linear2.bias': 2.596166065304804,
    'decoder.layers.0.norm1.weight': -1.0642488587286425,
    'decoder.layers.0.norm1.bias': -0.8643623527284312,
    'decoder.layers.0.norm2.weight': -4.1086275301006046,
    'decoder.layers.0.norm2.bias': 5.407828608706968,
    'decoder.layers.0.norm3.weight': -2.7523699838465387,
    'decoder.layers.0.norm3.bias': -1.9602245654301873,
    'decoder.layers.1.self_attn.in_proj_weight': 5.546502561088037,
    'decoder.layers.1.self_attn.in_proj_bias': -1.1794934713103038,
    'decoder.layers.1.self_attn.out_proj.weight': 12.166492473825066,
    'decoder.layers.1.self_attn.out_proj.bias': -1.8006146937134277,
    'decoder.layers.1.multihead_attn.in_proj_weight': 14.427438314522158,
    'decoder.layers.1.multihead_attn.in_proj_bias': 0.1680772749060082,
    'decoder.layers.1.multihead_attn.out_proj.weight': -4.88900077676278,
    'decoder.layers.1.multihead_attn.out_proj.bias': -1.405516480560378,
    'decoder.layers.1.linear1.weight': -8.984782162165237,
    'decoder.layers.1.linear1.bias': -0.3614554710977784,
    'decoder.layers.1.linear2.weight': 6.7617983040958425,
    'decoder.layers.1.linear2.bias': 0.9525657053099368,
    'decoder.layers.1.norm1.weight': -1.0696870046286866,
    'decoder.layers.1.norm1.bias': -2.6518422267832777,
    'decoder.layers.1.norm2.weight': 1.6996309841825243,
    'decoder.layers.1.norm2.bias': 1.5391995166167889,
    'decoder.layers.1.norm3.weight': 2.71538511282554,
    'decoder.layers.1.norm3.bias': 3.6052945269450145,
    'decoder.norm.weight': 15.934817593551806,
    'decoder.norm.bias': -7.658385964634352,
}
TRANSFORMER_KEYS = ['encoder.layers.0.self_attn.in_proj_weight', 'encoder.layers.0.self_attn.in_proj_bias',
    'encoder.layers.0.self_attn.out_proj.weight', 'encoder.layers.0.self_attn.out_proj.bias',
    'encoder.layers.0.linear1.weight', 'encoder.layers.0.linear1.bias', 'encoder.layers.0.linear2.weight',
    'encoder.layers.0.linear2.bias', 'encoder.layers.0.norm1.weight', 'encoder.layers.0.norm1.bias',
    'encoder.layers.0.norm2.weight', 'encoder.layers.0.norm2.bias', 'encoder.norm.weight', 'encoder.norm.bias',
    'decoder.layers.0.self_attn.in_proj_weight', 'decoder.layers.0.self_attn.in_proj_bias',
    'decoder.layers.0.self_attn.out_proj.weight', 'decoder.layers.0.self_attn.out_proj.bias',
    'decoder.layers.0.multihead_attn.in_proj_weight', 'decoder.layers.0.multihead_attn.in_proj_bias',
    'decoder.layers.0.multihead_attn.out_proj.weight', 'decoder.layers.0.multihead_attn.out_proj.bias',
    'decoder.layers.0.linear1.weight', 'decoder.layers.0.linear1.bias', 'decoder.layers.0.linear2.weight',
    'decoder.layers.0.linear2.bias', 'decoder.layers.0.norm1.weight', 'decoder.layers.0.norm1.bias',
    'decoder.layers.0.norm2.weight', 'decoder.layers.0.norm2.bias', 'decoder.layers.0.norm3.weight',
    'decoder.layers.0.norm3.bias', 'decoder.norm.weight', 'decoder.norm.bias']
ENCODER_LAYER_KEYS = ['self_attn.in_proj_weight', 'self_attn.in_proj_bias', 'self_attn.out_proj.weight',
    'self_attn.out_proj.bias', 'linear1.weight', 'linear1.bias', 'linear2.weight', 'linear2.bias', 'norm1.weight',
    'norm1.bias', 'norm2.weight', 'norm2.bias']
ENCODER_WARNING = ('enable_nested_tensor is True, but self.use_nested_tensor is False because '
                   'encoder_layer.self_attn.batch_first was not True(use batch_first for better inference performance)')


@pytest.fixture(scope="module")
def outputs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cases(nbgrad)


@pytest.mark.parametrize("name", list(RECORDED))
def test_eval_outputs_match_pytorch(outputs, name):
    shape, values = RECORDED[name]
    got = outputs[name]
    assert tuple(got.shape) == shape
    want = np.array(values).reshape(shape)
    if got.dtype is nbgrad.float32:
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-5, atol=1e-5)
    else:
        assert got.dtype is nbgrad.float64
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, atol=1e-12)


def test_gradients_match_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = nn.Transformer(8, 2, 2, 2, 16, dtype=nbgrad.float64)
    load_weights(nbgrad, tr, 4, nbgrad.float64).eval()
    rng = np.random.default_rng(7)
    src = nbgrad.tensor(rng.standard_normal((5, 2, 8)), requires_grad=True)
    tgt = nbgrad.tensor(rng.standard_normal((4, 2, 8)), requires_grad=True)
    spad = nbgrad.tensor([[False] * 5, [False] * 3 + [True] * 2])
    wout = nbgrad.tensor(rng.standard_normal((4, 2, 8)))
    out = tr(src, tgt, tgt_mask=tr.generate_square_subsequent_mask(4, dtype=nbgrad.float64),
             src_key_padding_mask=spad, memory_key_padding_mask=spad)
    (out * wout).sum().backward()
    np.testing.assert_allclose(src.grad.numpy().ravel(), GRAD_SRC, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tgt.grad.numpy().ravel(), GRAD_TGT, rtol=1e-10, atol=1e-12)
    prng = np.random.default_rng(8)
    names = [n for n, _ in tr.named_parameters()]
    assert names == list(GRAD_PARAM_DOTS)
    for n, p in tr.named_parameters():
        v = prng.standard_normal(tuple(p.shape))
        assert float((p.grad.numpy() * v).sum()) == pytest.approx(GRAD_PARAM_DOTS[n], rel=1e-9, abs=1e-11), n


def test_state_dict_keys_match_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert list(nn.Transformer(8, 2, 1, 1, 16).state_dict()) == TRANSFORMER_KEYS
    assert list(nn.TransformerEncoderLayer(8, 2, 16).state_dict()) == ENCODER_LAYER_KEYS
    dec = nn.TransformerDecoderLayer(8, 2, 16, bias=False)
    assert sorted(dict(dec.named_children())) == sorted(
        ["self_attn", "multihead_attn", "linear1", "dropout", "linear2", "norm1", "norm2", "norm3", "dropout1",
         "dropout2", "dropout3"])
    assert dec.linear1.bias is None and dec.norm1.bias is None and dec.self_attn.in_proj_bias is None


def test_encoder_warns_as_pytorch_and_clones_layers():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    with pytest.warns(UserWarning) as record:
        enc = nn.TransformerEncoder(layer, 3)
    assert str(record[0].message) == ENCODER_WARNING
    assert enc.use_nested_tensor is False and enc.enable_nested_tensor is True
    assert len(enc.layers) == 3 and enc.num_layers == 3 and enc.norm is None
    # deep copies: separate parameters, equal values
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    np.testing.assert_array_equal(enc.layers[0].linear1.weight.detach().numpy(),
                                  enc.layers[2].linear1.weight.detach().numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)


def test_square_subsequent_mask_and_causal_detection():
    from nbgrad.nn.modules.transformer import _detect_is_causal_mask
    m = nn.Transformer.generate_square_subsequent_mask(3)
    assert m.dtype is nbgrad.float32
    inf = float("-inf")
    np.testing.assert_array_equal(m.numpy(), [[0.0, inf, inf], [0.0, 0.0, inf], [0.0, 0.0, 0.0]])
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=nbgrad.float64).dtype is nbgrad.float64
    assert _detect_is_causal_mask(m) is True
    assert _detect_is_causal_mask(m, size=4) is False
    assert _detect_is_causal_mask(m, is_causal=False) is False
    assert _detect_is_causal_mask(nbgrad.zeros(3, 3)) is False
    assert _detect_is_causal_mask(None, True) is True
    assert _detect_is_causal_mask(None) is False


def test_activation_forms():
    assert nn.TransformerEncoderLayer(8, 2, 16).activation_relu_or_gelu == 1
    assert nn.TransformerEncoderLayer(8, 2, 16, activation="gelu").activation_relu_or_gelu == 2
    assert nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU()).activation_relu_or_gelu == 2
    assert nn.TransformerEncoderLayer(8, 2, 16, activation=nbgrad.tanh).activation_relu_or_gelu == 0
    assert nn.TransformerDecoderLayer(8, 2, 16, activation="gelu").activation is F.gelu
    with pytest.raises(RuntimeError, match="^activation should be relu/gelu, not tanh$"):
        nn.TransformerEncoderLayer(8, 2, 16, activation="tanh")


def test_training_step_gradients_finite_and_loss_drops():
    nbgrad.manual_seed(0)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.1, batch_first=True)
    head = nn.Linear(8, 5)
    params = list(model.parameters()) + list(head.parameters())
    opt = nbgrad.optim.SGD(params, lr=0.05)
    rng = np.random.default_rng(3)
    src = nbgrad.tensor(rng.standard_normal((4, 6, 8)), dtype=nbgrad.float32)
    tgt = nbgrad.tensor(rng.standard_normal((4, 5, 8)), dtype=nbgrad.float32)
    labels = nbgrad.tensor(rng.integers(0, 5, (4 * 5,)))
    pad = nbgrad.tensor(np.arange(6)[None, :] >= np.array([6, 5, 4, 6])[:, None])
    mask = model.generate_square_subsequent_mask(5)
    model.train()
    losses = []
    for _ in range(5):
        opt.zero_grad()
        out = model(src, tgt, tgt_mask=mask, src_key_padding_mask=pad, memory_key_padding_mask=pad)
        loss = F.cross_entropy(head(out).reshape(-1, 5), labels)
        loss.backward()
        for n, p in model.named_parameters():
            assert p.grad is not None, n
            assert np.isfinite(p.grad.numpy()).all(), n
        assert np.abs(model.encoder.layers[0].linear1.weight.grad.numpy()).sum() > 0
        opt.step()
        losses.append(float(loss))
    assert np.isfinite(losses).all()
    model.eval()
    with nbgrad.no_grad():
        final = float(F.cross_entropy(head(model(src, tgt, tgt_mask=mask, src_key_padding_mask=pad,
                                                 memory_key_padding_mask=pad)).reshape(-1, 5), labels))
    assert final < losses[0]


def test_dropout_is_active_in_training_only():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = nbgrad.randn(3, 2, 8)
    layer.eval()
    np.testing.assert_array_equal(layer(x).detach().numpy(), layer(x).detach().numpy())
    layer.train()
    assert not np.array_equal(layer(x).detach().numpy(), layer(x).detach().numpy())


def test_errors_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = nn.Transformer(8, 2, 1, 1, 16)
        trb = nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
    with pytest.raises(RuntimeError, match="^the batch number of src and tgt must be equal$"):
        tr(nbgrad.randn(5, 2, 8), nbgrad.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="^the batch number of src and tgt must be equal$"):
        trb(nbgrad.randn(2, 5, 8), nbgrad.randn(3, 4, 8))
    with pytest.raises(RuntimeError, match="^the feature number of src and tgt must be equal to d_model$"):
        tr(nbgrad.randn(5, 2, 6), nbgrad.randn(4, 2, 6))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.TransformerEncoderLayer(8, 3)
