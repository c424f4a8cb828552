"""repr/str of tensors against PyTorch 2.13's strings, recorded by running torch on the same
expressions (torch. names mapped to nbgrad.): formatter modes, widths, row wrapping at 80
columns, grad_fn on its own line, summarization, print options and misuse errors."""
import pytest

import nbgrad
import nbgrad as nb
from nbgrad import _format   # (PyTorch's torch._tensor_str: get_printoptions, printoptions)


# (expression over `nb`, PyTorch's repr)
REPRS = [
    ('nb.tensor(3.)',
     'tensor(3.)'),
    ('nb.tensor(-0.)',
     'tensor(-0.)'),
    ('nb.tensor(7)',
     'tensor(7)'),
    ('nb.tensor(True)',
     'tensor(True)'),
    ('nb.tensor(1.5)',
     'tensor(1.5000)'),
    ("nb.tensor(float('nan'))",
     'tensor(nan)'),
    ("nb.tensor(float('-inf'))",
     'tensor(-inf)'),
    ('nb.tensor(1e-5)',
     'tensor(1.0000e-05)'),
    ('nb.tensor(123456789.)',
     'tensor(1.2346e+08)'),
    ('nb.tensor([])',
     'tensor([])'),
    ('nb.tensor([], dtype=nb.int64)',
     'tensor([], dtype=nbgrad.int64)'),
    ('nb.zeros(0, 3)',
     'tensor([], size=(0, 3))'),
    ('nb.zeros(2, 0, dtype=nb.int32)',
     'tensor([], size=(2, 0), dtype=nbgrad.int32)'),
    ('nb.zeros(0, dtype=nb.float64)',
     'tensor([], dtype=nbgrad.float64)'),
    ('nb.zeros(0, 2, requires_grad=True)',
     'tensor([], size=(0, 2), requires_grad=True)'),
    ('nb.tensor([1., 2.])',
     'tensor([1., 2.])'),
    ('nb.tensor([1.5, 2.])',
     'tensor([1.5000, 2.0000])'),
    ('nb.tensor([-0., 1.])',
     'tensor([-0., 1.])'),
    ('nb.tensor([[-0., 1.]])',
     'tensor([[-0., 1.]])'),
    ('nb.tensor([-0., 0.])',
     'tensor([-0., 0.])'),
    ('nb.tensor([0., 0.])',
     'tensor([0., 0.])'),
    ('nb.tensor([-0., 1.5])',
     'tensor([-0.0000, 1.5000])'),
    ("nb.tensor([float('nan'), 1., float('inf')])",
     'tensor([nan, 1., inf])'),
    ("nb.tensor([float('nan'), -1.5, 2.])",
     'tensor([    nan, -1.5000,  2.0000])'),
    ("nb.tensor([float('nan'), float('inf'), -float('inf')])",
     'tensor([nan, inf, -inf])'),
    ('nb.tensor([1e-5, 1.])',
     'tensor([1.0000e-05, 1.0000e+00])'),
    ('nb.tensor([1e9, 1.])',
     'tensor([1.0000e+09, 1.0000e+00])'),
    ('nb.tensor([1e-5, 2e-5])',
     'tensor([1.0000e-05, 2.0000e-05])'),
    ('nb.tensor([1., 1000.])',
     'tensor([   1., 1000.])'),
    ('nb.tensor([1., 1001.])',
     'tensor([1.0000e+00, 1.0010e+03])'),
    ('nb.tensor([0.5, 1000.])',
     'tensor([5.0000e-01, 1.0000e+03])'),
    ('nb.tensor([1.25, 100.])',
     'tensor([  1.2500, 100.0000])'),
    ('nb.tensor([123456.789, 0.001])',
     'tensor([1.2346e+05, 1.0000e-03])'),
    ('nb.tensor([1e8, 2e8])',
     'tensor([1.0000e+08, 2.0000e+08])'),
    ('nb.tensor([1e10])',
     'tensor([1.0000e+10])'),
    ('nb.tensor([-1e-7, 3.])',
     'tensor([-1.0000e-07,  3.0000e+00])'),
    ("nb.tensor([1e20, -1e-20, float('nan')])",
     'tensor([ 1.0000e+20, -1.0000e-20,         nan])'),
    ('nb.tensor([1, 2, 3])',
     'tensor([1, 2, 3])'),
    ('nb.tensor([-100, 2, 30000])',
     'tensor([ -100,     2, 30000])'),
    ('nb.tensor([True, False])',
     'tensor([ True, False])'),
    ('nb.tensor([1, 2], dtype=nb.int32)',
     'tensor([1, 2], dtype=nbgrad.int32)'),
    ('nb.tensor([1, 2], dtype=nb.int16)',
     'tensor([1, 2], dtype=nbgrad.int16)'),
    ('nb.tensor([1, 2], dtype=nb.int8)',
     'tensor([1, 2], dtype=nbgrad.int8)'),
    ('nb.tensor([1, 255], dtype=nb.uint8)',
     'tensor([  1, 255], dtype=nbgrad.uint8)'),
    ('nb.tensor([1., 2.], dtype=nb.float64)',
     'tensor([1., 2.], dtype=nbgrad.float64)'),
    ('nb.tensor([0.1, 2.], dtype=nb.float64)',
     'tensor([0.1000, 2.0000], dtype=nbgrad.float64)'),
    ('nb.tensor([0.1, 1/3, 65504., 1.2e-7], dtype=nb.float16)',
     'tensor([9.9976e-02, 3.3325e-01, 6.5504e+04, 1.1921e-07], dtype=nbgrad.float16)'),
    ('nb.tensor([1., 2.], dtype=nb.float16)',
     'tensor([1., 2.], dtype=nbgrad.float16)'),
    ('nb.tensor(0.1, dtype=nb.float16)',
     'tensor(0.1000, dtype=nbgrad.float16)'),
    ('nb.tensor([1., 2.], requires_grad=True)',
     'tensor([1., 2.], requires_grad=True)'),
    ('nb.tensor(2., requires_grad=True)',
     'tensor(2., requires_grad=True)'),
    ('nb.tensor([1., 2.], requires_grad=True) * 2',
     'tensor([2., 4.], grad_fn=<MulBackward0>)'),
    ('nb.tensor([1., 2.], requires_grad=True).sum()',
     'tensor(3., grad_fn=<SumBackward0>)'),
    ('nb.tensor([1., 2.], dtype=nb.float64, requires_grad=True) + 1',
     'tensor([2., 3.], dtype=nbgrad.float64, grad_fn=<AddBackward0>)'),
    ('nb.arange(10)',
     'tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])'),
    ('nb.arange(30)',
     'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])'),
    ('nb.arange(40)',
     'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n        36, 37, 38, 39])'),
    ('nb.arange(100)',
     'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n        36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,\n        54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n        72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89,\n        90, 91, 92, 93, 94, 95, 96, 97, 98, 99])'),
    ('nb.arange(1001)',
     'tensor([   0,    1,    2,  ...,  998,  999, 1000])'),
    ('nb.arange(1000)',
     'tensor([  0,   1,   2,   3,   4,   5,   6,   7,   8,   9,  10,  11,  12,  13,\n         14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  24,  25,  26,  27,\n         28,  29,  30,  31,  32,  33,  34,  35,  36,  37,  38,  39,  40,  41,\n         42,  43,  44,  45,  46,  47,  48,  49,  50,  51,  52,  53,  54,  55,\n         56,  57,  58,  59,  60,  61,  62,  63,  64,  65,  66,  67,  68,  69,\n         70,  71,  72,  73,  74,  75,  76,  77,  78,  79,  80,  81,  82,  83,\n         84,  85,  86,  87,  88,  89,  90,  91,  92,  93,  94,  95,  96,  97,\n         98,  99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,\n        112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125,\n        126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139,\n        140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153,\n        154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167,\n        168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181,\n        182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195,\n        196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209,\n        210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223,\n        224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237,\n        238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251,\n        252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265,\n        266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279,\n        280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293,\n        294, 295, 296, 297, 298, 299, 300, 301, 302, 303, 304, 305, 306, 307,\n        308, 309, 310, 311, 312, 313, 314, 315, 316, 317, 318, 319, 320, 321,\n        322, 323, 324, 325, 326, 327, 328, 329, 330, 331, 332, 333, 334, 335,\n        336, 337, 338, 339, 340, 341, 342, 343, 344, 345, 346, 347, 348, 349,\n        350, 351, 352, 353, 354, 355, 356, 357, 358, 359, 360, 361, 362, 363,\n        364, 365, 366, 367, 368, 369, 370, 371, 372, 373, 374, 375, 376, 377,\n        378, 379, 380, 381, 382, 383, 384, 385, 386, 387, 388, 389, 390, 391,\n        392, 393, 394, 395, 396, 397, 398, 399, 400, 401, 402, 403, 404, 405,\n        406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418, 419,\n        420, 421, 422, 423, 424, 425, 426, 427, 428, 429, 430, 431, 432, 433,\n        434, 435, 436, 437, 438, 439, 440, 441, 442, 443, 444, 445, 446, 447,\n        448, 449, 450, 451, 452, 453, 454, 455, 456, 457, 458, 459, 460, 461,\n        462, 463, 464, 465, 466, 467, 468, 469, 470, 471, 472, 473, 474, 475,\n        476, 477, 478, 479, 480, 481, 482, 483, 484, 485, 486, 487, 488, 489,\n        490, 491, 492, 493, 494, 495, 496, 497, 498, 499, 500, 501, 502, 503,\n        504, 505, 506, 507, 508, 509, 510, 511, 512, 513, 514, 515, 516, 517,\n        518, 519, 520, 521, 522, 523, 524, 525, 526, 527, 528, 529, 530, 531,\n        532, 533, 534, 535, 536, 537, 538, 539, 540, 541, 542, 543, 544, 545,\n        546, 547, 548, 549, 550, 551, 552, 553, 554, 555, 556, 557, 558, 559,\n        560, 561, 562, 563, 564, 565, 566, 567, 568, 569, 570, 571, 572, 573,\n        574, 575, 576, 577, 578, 579, 580, 581, 582, 583, 584, 585, 586, 587,\n        588, 589, 590, 591, 592, 593, 594, 595, 596, 597, 598, 599, 600, 601,\n        602, 603, 604, 605, 606, 607, 608, 609, 610, 611, 612, 613, 614, 615,\n        616, 617, 618, 619, 620, 621, 622, 623, 624, 625, 626, 627, 628, 629,\n        630, 631, 632, 633, 634, 635, 636, 637, 638, 639, 640, 641, 642, 643,\n        644, 645, 646, 647, 648, 649, 650, 651, 652, 653, 654, 655, 656, 657,\n        658, 659, 660, 661, 662, 663, 664, 665, 666, 667, 668, 669, 670, 671,\n        672, 673, 674, 675, 676, 677, 678, 679, 680, 681, 682, 683, 684, 685,\n        686, 687, 688, 689, 690, 691, 692, 693, 694, 695, 696, 697, 698, 699,\n        700, 701, 702, 703, 704, 705, 706, 707, 708, 709, 710, 711, 712, 713,\n        714, 715, 716, 717, 718, 719, 720, 721, 722, 723, 724, 725, 726, 727,\n        728, 729, 730, 731, 732, 733, 734, 735, 736, 737, 738, 739, 740, 741,\n        742, 743, 744, 745, 746, 747, 748, 749, 750, 751, 752, 753, 754, 755,\n        756, 757, 758, 759, 760, 761, 762, 763, 764, 765, 766, 767, 768, 769,\n        770, 771, 772, 773, 774, 775, 776, 777, 778, 779, 780, 781, 782, 783,\n        784, 785, 786, 787, 788, 789, 790, 791, 792, 793, 794, 795, 796, 797,\n        798, 799, 800, 801, 802, 803, 804, 805, 806, 807, 808, 809, 810, 811,\n        812, 813, 814, 815, 816, 817, 818, 819, 820, 821, 822, 823, 824, 825,\n        826, 827, 828, 829, 830, 831, 832, 833, 834, 835, 836, 837, 838, 839,\n        840, 841, 842, 843, 844, 845, 846, 847, 848, 849, 850, 851, 852, 853,\n        854, 855, 856, 857, 858, 859, 860, 861, 862, 863, 864, 865, 866, 867,\n        868, 869, 870, 871, 872, 873, 874, 875, 876, 877, 878, 879, 880, 881,\n        882, 883, 884, 885, 886, 887, 888, 889, 890, 891, 892, 893, 894, 895,\n        896, 897, 898, 899, 900, 901, 902, 903, 904, 905, 906, 907, 908, 909,\n        910, 911, 912, 913, 914, 915, 916, 917, 918, 919, 920, 921, 922, 923,\n        924, 925, 926, 927, 928, 929, 930, 931, 932, 933, 934, 935, 936, 937,\n        938, 939, 940, 941, 942, 943, 944, 945, 946, 947, 948, 949, 950, 951,\n        952, 953, 954, 955, 956, 957, 958, 959, 960, 961, 962, 963, 964, 965,\n        966, 967, 968, 969, 970, 971, 972, 973, 974, 975, 976, 977, 978, 979,\n        980, 981, 982, 983, 984, 985, 986, 987, 988, 989, 990, 991, 992, 993,\n        994, 995, 996, 997, 998, 999])'),
    ('nb.arange(2000.)',
     'tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])'),
    ('nb.arange(1001) * 1.5',
     'tensor([   0.0000,    1.5000,    3.0000,  ..., 1497.0000, 1498.5000,\n        1500.0000])'),
    ('nb.arange(12).reshape(3, 4)',
     'tensor([[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]])'),
    ('nb.arange(24).reshape(2, 3, 4)',
     'tensor([[[ 0,  1,  2,  3],\n         [ 4,  5,  6,  7],\n         [ 8,  9, 10, 11]],\n\n        [[12, 13, 14, 15],\n         [16, 17, 18, 19],\n         [20, 21, 22, 23]]])'),
    ('nb.arange(24.).reshape(2, 3, 4) / 7',
     'tensor([[[0.0000, 0.1429, 0.2857, 0.4286],\n         [0.5714, 0.7143, 0.8571, 1.0000],\n         [1.1429, 1.2857, 1.4286, 1.5714]],\n\n        [[1.7143, 1.8571, 2.0000, 2.1429],\n         [2.2857, 2.4286, 2.5714, 2.7143],\n         [2.8571, 3.0000, 3.1429, 3.2857]]])'),
    ('nb.arange(120).reshape(2, 3, 4, 5)',
     'tensor([[[[  0,   1,   2,   3,   4],\n          [  5,   6,   7,   8,   9],\n          [ 10,  11,  12,  13,  14],\n          [ 15,  16,  17,  18,  19]],\n\n         [[ 20,  21,  22,  23,  24],\n          [ 25,  26,  27,  28,  29],\n          [ 30,  31,  32,  33,  34],\n          [ 35,  36,  37,  38,  39]],\n\n         [[ 40,  41,  42,  43,  44],\n          [ 45,  46,  47,  48,  49],\n          [ 50,  51,  52,  53,  54],\n          [ 55,  56,  57,  58,  59]]],\n\n\n        [[[ 60,  61,  62,  63,  64],\n          [ 65,  66,  67,  68,  69],\n          [ 70,  71,  72,  73,  74],\n          [ 75,  76,  77,  78,  79]],\n\n         [[ 80,  81,  82,  83,  84],\n          [ 85,  86,  87,  88,  89],\n          [ 90,  91,  92,  93,  94],\n          [ 95,  96,  97,  98,  99]],\n\n         [[100, 101, 102, 103, 104],\n          [105, 106, 107, 108, 109],\n          [110, 111, 112, 113, 114],\n          [115, 116, 117, 118, 119]]]])'),
    ('nb.arange(1100).reshape(100, 11)',
     'tensor([[   0,    1,    2,  ...,    8,    9,   10],\n        [  11,   12,   13,  ...,   19,   20,   21],\n        [  22,   23,   24,  ...,   30,   31,   32],\n        ...,\n        [1067, 1068, 1069,  ..., 1075, 1076, 1077],\n        [1078, 1079, 1080,  ..., 1086, 1087, 1088],\n        [1089, 1090, 1091,  ..., 1097, 1098, 1099]])'),
    ('nb.arange(1100.).reshape(11, 100)',
     'tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.7000e+01, 9.8000e+01,\n         9.9000e+01],\n        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.9700e+02, 1.9800e+02,\n         1.9900e+02],\n        [2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.9700e+02, 2.9800e+02,\n         2.9900e+02],\n        ...,\n        [8.0000e+02, 8.0100e+02, 8.0200e+02,  ..., 8.9700e+02, 8.9800e+02,\n         8.9900e+02],\n        [9.0000e+02, 9.0100e+02, 9.0200e+02,  ..., 9.9700e+02, 9.9800e+02,\n         9.9900e+02],\n        [1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.0970e+03, 1.0980e+03,\n         1.0990e+03]])'),
    ('nb.arange(3000).reshape(10, 10, 30)',
     'tensor([[[   0,    1,    2,  ...,   27,   28,   29],\n         [  30,   31,   32,  ...,   57,   58,   59],\n         [  60,   61,   62,  ...,   87,   88,   89],\n         ...,\n         [ 210,  211,  212,  ...,  237,  238,  239],\n         [ 240,  241,  242,  ...,  267,  268,  269],\n         [ 270,  271,  272,  ...,  297,  298,  299]],\n\n        [[ 300,  301,  302,  ...,  327,  328,  329],\n         [ 330,  331,  332,  ...,  357,  358,  359],\n         [ 360,  361,  362,  ...,  387,  388,  389],\n         ...,\n         [ 510,  511,  512,  ...,  537,  538,  539],\n         [ 540,  541,  542,  ...,  567,  568,  569],\n         [ 570,  571,  572,  ...,  597,  598,  599]],\n\n        [[ 600,  601,  602,  ...,  627,  628,  629],\n         [ 630,  631,  632,  ...,  657,  658,  659],\n         [ 660,  661,  662,  ...,  687,  688,  689],\n         ...,\n         [ 810,  811,  812,  ...,  837,  838,  839],\n         [ 840,  841,  842,  ...,  867,  868,  869],\n         [ 870,  871,  872,  ...,  897,  898,  899]],\n\n        ...,\n\n        [[2100, 2101, 2102,  ..., 2127, 2128, 2129],\n         [2130, 2131, 2132,  ..., 2157, 2158, 2159],\n         [2160, 2161, 2162,  ..., 2187, 2188, 2189],\n         ...,\n         [2310, 2311, 2312,  ..., 2337, 2338, 2339],\n         [2340, 2341, 2342,  ..., 2367, 2368, 2369],\n         [2370, 2371, 2372,  ..., 2397, 2398, 2399]],\n\n        [[2400, 2401, 2402,  ..., 2427, 2428, 2429],\n         [2430, 2431, 2432,  ..., 2457, 2458, 2459],\n         [2460, 2461, 2462,  ..., 2487, 2488, 2489],\n         ...,\n         [2610, 2611, 2612,  ..., 2637, 2638, 2639],\n         [2640, 2641, 2642,  ..., 2667, 2668, 2669],\n         [2670, 2671, 2672,  ..., 2697, 2698, 2699]],\n\n        [[2700, 2701, 2702,  ..., 2727, 2728, 2729],\n         [2730, 2731, 2732,  ..., 2757, 2758, 2759],\n         [2760, 2761, 2762,  ..., 2787, 2788, 2789],\n         ...,\n         [2910, 2911, 2912,  ..., 2937, 2938, 2939],\n         [2940, 2941, 2942,  ..., 2967, 2968, 2969],\n         [2970, 2971, 2972,  ..., 2997, 2998, 2999]]])'),
    ('nb.arange(2 * 13, dtype=nb.float32).reshape(2, 13) / 3',
     'tensor([[0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n         3.0000, 3.3333, 3.6667, 4.0000],\n        [4.3333, 4.6667, 5.0000, 5.3333, 5.6667, 6.0000, 6.3333, 6.6667, 7.0000,\n         7.3333, 7.6667, 8.0000, 8.3333]])'),
    ('nb.arange(2 * 14, dtype=nb.float32).reshape(2, 14) / 3',
     'tensor([[0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n         3.0000, 3.3333, 3.6667, 4.0000, 4.3333],\n        [4.6667, 5.0000, 5.3333, 5.6667, 6.0000, 6.3333, 6.6667, 7.0000, 7.3333,\n         7.6667, 8.0000, 8.3333, 8.6667, 9.0000]])'),
    ('nb.arange(2 * 12, dtype=nb.float32).reshape(2, 12) / 3',
     'tensor([[0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n         3.0000, 3.3333, 3.6667],\n        [4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667, 6.0000, 6.3333, 6.6667,\n         7.0000, 7.3333, 7.6667]])'),
    ('nb.arange(2 * 11, dtype=nb.float32).reshape(2, 11) / 3',
     'tensor([[0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n         3.0000, 3.3333],\n        [3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667, 6.0000, 6.3333,\n         6.6667, 7.0000]])'),
    ('nb.arange(40.).reshape(2, 20)',
     'tensor([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n         14., 15., 16., 17., 18., 19.],\n        [20., 21., 22., 23., 24., 25., 26., 27., 28., 29., 30., 31., 32., 33.,\n         34., 35., 36., 37., 38., 39.]])'),
    ('nb.arange(60.).reshape(2, 30)',
     'tensor([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n         14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n         28., 29.],\n        [30., 31., 32., 33., 34., 35., 36., 37., 38., 39., 40., 41., 42., 43.,\n         44., 45., 46., 47., 48., 49., 50., 51., 52., 53., 54., 55., 56., 57.,\n         58., 59.]])'),
    ('nb.arange(26, dtype=nb.float32) / 3',
     'tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n        6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667, 8.0000, 8.3333])'),
    ('nb.arange(27, dtype=nb.float32) / 3',
     'tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n        6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667, 8.0000, 8.3333, 8.6667])'),
    ('nb.arange(40, dtype=nb.float64) / 3',
     'tensor([ 0.0000,  0.3333,  0.6667,  1.0000,  1.3333,  1.6667,  2.0000,  2.3333,\n         2.6667,  3.0000,  3.3333,  3.6667,  4.0000,  4.3333,  4.6667,  5.0000,\n         5.3333,  5.6667,  6.0000,  6.3333,  6.6667,  7.0000,  7.3333,  7.6667,\n         8.0000,  8.3333,  8.6667,  9.0000,  9.3333,  9.6667, 10.0000, 10.3333,\n        10.6667, 11.0000, 11.3333, 11.6667, 12.0000, 12.3333, 12.6667, 13.0000],\n       dtype=nbgrad.float64)'),
    ('(nb.arange(2 * 12, dtype=nb.float32).reshape(2, 12) / 3).requires_grad_()',
     'tensor([[0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n         3.0000, 3.3333, 3.6667],\n        [4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667, 6.0000, 6.3333, 6.6667,\n         7.0000, 7.3333, 7.6667]], requires_grad=True)'),
    ('(nb.arange(2 * 12, dtype=nb.float32).reshape(2, 12) / 3).requires_grad_() * 2',
     'tensor([[ 0.0000,  0.6667,  1.3333,  2.0000,  2.6667,  3.3333,  4.0000,  4.6667,\n          5.3333,  6.0000,  6.6667,  7.3333],\n        [ 8.0000,  8.6667,  9.3333, 10.0000, 10.6667, 11.3333, 12.0000, 12.6667,\n         13.3333, 14.0000, 14.6667, 15.3333]], grad_fn=<MulBackward0>)'),
    ('(nb.arange(13, dtype=nb.float32) / 3).requires_grad_() * 2',
     'tensor([0.0000, 0.6667, 1.3333, 2.0000, 2.6667, 3.3333, 4.0000, 4.6667, 5.3333,\n        6.0000, 6.6667, 7.3333, 8.0000], grad_fn=<MulBackward0>)'),
    ('(nb.arange(11, dtype=nb.float32) / 3).requires_grad_() * 2',
     'tensor([0.0000, 0.6667, 1.3333, 2.0000, 2.6667, 3.3333, 4.0000, 4.6667, 5.3333,\n        6.0000, 6.6667], grad_fn=<MulBackward0>)'),
    ('(nb.arange(12, dtype=nb.float32) / 3).requires_grad_() * 2',
     'tensor([0.0000, 0.6667, 1.3333, 2.0000, 2.6667, 3.3333, 4.0000, 4.6667, 5.3333,\n        6.0000, 6.6667, 7.3333], grad_fn=<MulBackward0>)'),
    ('(nb.arange(10, dtype=nb.float64) / 3).requires_grad_() * 2',
     'tensor([0.0000, 0.6667, 1.3333, 2.0000, 2.6667, 3.3333, 4.0000, 4.6667, 5.3333,\n        6.0000], dtype=nbgrad.float64, grad_fn=<MulBackward0>)'),
    ('nb.arange(9, dtype=nb.float64).requires_grad_() * 2',
     'tensor([ 0.,  2.,  4.,  6.,  8., 10., 12., 14., 16.], dtype=nbgrad.float64,\n       grad_fn=<MulBackward0>)'),
    ('nb.arange(11, dtype=nb.float64).requires_grad_() * 2',
     'tensor([ 0.,  2.,  4.,  6.,  8., 10., 12., 14., 16., 18., 20.],\n       dtype=nbgrad.float64, grad_fn=<MulBackward0>)'),
    ('nb.tensor([[1.5, 2.], [3., 4.]])',
     'tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]])'),
    ('nb.tensor([[1e-8, 1.], [3., 4.]])',
     'tensor([[1.0000e-08, 1.0000e+00],\n        [3.0000e+00, 4.0000e+00]])'),
    ('nb.ones(2, 2, 2, 2)',
     'tensor([[[[1., 1.],\n          [1., 1.]],\n\n         [[1., 1.],\n          [1., 1.]]],\n\n\n        [[[1., 1.],\n          [1., 1.]],\n\n         [[1., 1.],\n          [1., 1.]]]])'),
    ('nb.eye(3, dtype=nb.bool)',
     'tensor([[ True, False, False],\n        [False,  True, False],\n        [False, False,  True]])'),
    ('nb.tensor([[True, False], [False, True]])',
     'tensor([[ True, False],\n        [False,  True]])'),
    ('nb.ones(2, 3, dtype=nb.float64) * 1e-3',
     'tensor([[0.0010, 0.0010, 0.0010],\n        [0.0010, 0.0010, 0.0010]], dtype=nbgrad.float64)'),
    ('nb.ones(1, 1, 1)',
     'tensor([[[1.]]])'),
    ('nb.ones(3, 1)',
     'tensor([[1.],\n        [1.],\n        [1.]])'),
    ('nb.full((2, 3), -7)',
     'tensor([[-7, -7, -7],\n        [-7, -7, -7]])'),
    ('nb.full((4,), 2.5e-3)',
     'tensor([0.0025, 0.0025, 0.0025, 0.0025])'),
    ('nb.full((4,), 123456.)',
     'tensor([123456., 123456., 123456., 123456.])'),
    ('nb.arange(1200, dtype=nb.float16).reshape(30, 40)',
     'tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 3.7000e+01, 3.8000e+01,\n         3.9000e+01],\n        [4.0000e+01, 4.1000e+01, 4.2000e+01,  ..., 7.7000e+01, 7.8000e+01,\n         7.9000e+01],\n        [8.0000e+01, 8.1000e+01, 8.2000e+01,  ..., 1.1700e+02, 1.1800e+02,\n         1.1900e+02],\n        ...,\n        [1.0800e+03, 1.0810e+03, 1.0820e+03,  ..., 1.1170e+03, 1.1180e+03,\n         1.1190e+03],\n        [1.1200e+03, 1.1210e+03, 1.1220e+03,  ..., 1.1570e+03, 1.1580e+03,\n         1.1590e+03],\n        [1.1600e+03, 1.1610e+03, 1.1620e+03,  ..., 1.1970e+03, 1.1980e+03,\n         1.1990e+03]], dtype=nbgrad.float16)'),
    # a dtype suffix is measured as PyTorch's `dtype=torch.float64`: lines break where PyTorch's do
    ('nb.tensor([[-2612.25, 107.75], [-542.75, -615.0]], dtype=nb.float64, requires_grad=True) * 1',
     'tensor([[-2612.2500,   107.7500],\n        [ -542.7500,  -615.0000]], dtype=nbgrad.float64, grad_fn=<MulBackward0>)'),
    ('nb.tensor([[10392559.1726, -13275318.6919, 5977586.0091], [-1506292.4960, -11263655.4738, 4926306.9925]], dtype=nb.float64, requires_grad=True)',
     'tensor([[ 10392559.1726, -13275318.6919,   5977586.0091],\n        [ -1506292.4960, -11263655.4738,   4926306.9925]], dtype=nbgrad.float64,\n       requires_grad=True)'),
    ('nb.tensor([[-2612.25, 107.75, 1.5], [-542.75, -615.0, 2.5]], dtype=nb.float64)',
     'tensor([[-2.6122e+03,  1.0775e+02,  1.5000e+00],\n        [-5.4275e+02, -6.1500e+02,  2.5000e+00]], dtype=nbgrad.float64)'),
    ('nb.tensor([[-12612.25, 107.75, 1.5], [-542.75, -615.0, 2.5]], dtype=nb.float64)',
     'tensor([[-1.2612e+04,  1.0775e+02,  1.5000e+00],\n        [-5.4275e+02, -6.1500e+02,  2.5000e+00]], dtype=nbgrad.float64)'),
    ('nb.tensor([[-12612.25, 107.75, 1.5, 2.0, 3.0, 4.25], [-542.75, -615.0, 2.5, 1.0, 1.0, 1.0]], dtype=nb.float16)',
     'tensor([[-1.2616e+04,  1.0775e+02,  1.5000e+00,  2.0000e+00,  3.0000e+00,\n          4.2500e+00],\n        [-5.4300e+02, -6.1500e+02,  2.5000e+00,  1.0000e+00,  1.0000e+00,\n          1.0000e+00]], dtype=nbgrad.float16)'),
    ('nb.tensor([[-12612, 107, 1], [-542, -615, 2]], dtype=nb.int32)',
     'tensor([[-12612,    107,      1],\n        [  -542,   -615,      2]], dtype=nbgrad.int32)'),
    ('nb.tensor([[-1261233, 107, 1, 2], [-542, -615, 2, 3]], dtype=nb.int32)',
     'tensor([[-1261233,      107,        1,        2],\n        [    -542,     -615,        2,        3]], dtype=nbgrad.int32)'),
]

# (print options, expression, PyTorch's repr under them)
WITH_OPTIONS = [
    ({'precision': 2}, 'nb.tensor([1.12345, 2.])',
     'tensor([1.12, 2.00])'),
    ({'precision': 6}, 'nb.tensor([1.12345, 2.])',
     'tensor([1.123450, 2.000000])'),
    ({'precision': 2}, 'nb.tensor([1e-6, 2.])',
     'tensor([1.00e-06, 2.00e+00])'),
    ({'threshold': 5}, 'nb.arange(10)',
     'tensor([0, 1, 2,  ..., 7, 8, 9])'),
    ({'threshold': 5, 'edgeitems': 1}, 'nb.arange(10)',
     'tensor([0,  ..., 9])'),
    ({'threshold': 5, 'edgeitems': 2}, 'nb.arange(20.).reshape(4, 5)',
     'tensor([[ 0.,  1.,  ...,  3.,  4.],\n        [ 5.,  6.,  ...,  8.,  9.],\n        [10., 11.,  ..., 13., 14.],\n        [15., 16.,  ..., 18., 19.]])'),
    ({'threshold': 5, 'edgeitems': 0}, 'nb.arange(10)',
     'tensor([...], size=(10,))'),
    ({'linewidth': 40}, 'nb.arange(30)',
     'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,\n         8,  9, 10, 11, 12, 13, 14, 15,\n        16, 17, 18, 19, 20, 21, 22, 23,\n        24, 25, 26, 27, 28, 29])'),
    ({'linewidth': 40}, 'nb.arange(20.) / 3',
     'tensor([0.0000, 0.3333, 0.6667, 1.0000,\n        1.3333, 1.6667, 2.0000, 2.3333,\n        2.6667, 3.0000, 3.3333, 3.6667,\n        4.0000, 4.3333, 4.6667, 5.0000,\n        5.3333, 5.6667, 6.0000, 6.3333])'),
    ({'linewidth': 40}, '(nb.arange(8.) / 3).requires_grad_() * 2',
     'tensor([0.0000, 0.6667, 1.3333, 2.0000,\n        2.6667, 3.3333, 4.0000, 4.6667],\n       grad_fn=<MulBackward0>)'),
    ({'sci_mode': True}, 'nb.tensor([1., 2.5])',
     'tensor([1.0000e+00, 2.5000e+00])'),
    ({'sci_mode': False}, 'nb.tensor([1e-6, 2.5e8])',
     'tensor([        0.0000, 250000000.0000])'),
    ({'sci_mode': True}, 'nb.tensor([1, 2])',
     'tensor([1, 2])'),
    ({'profile': 'short'}, 'nb.arange(10.) / 3',
     'tensor([0.00, 0.33, 0.67, 1.00, 1.33, 1.67, 2.00, 2.33, 2.67, 3.00])'),
    ({'profile': 'short'}, 'nb.arange(1100)',
     'tensor([   0,    1,  ..., 1098, 1099])'),
    ({'profile': 'full'}, 'nb.arange(1100)[:5]',
     'tensor([0, 1, 2, 3, 4])'),
    ({'profile': 'full', 'threshold': 3}, 'nb.arange(10)',
     'tensor([0, 1, 2,  ..., 7, 8, 9])'),
]



@pytest.fixture(autouse=True)
def default_print_options():
    nbgrad.set_printoptions(profile="default")
    yield
    nbgrad.set_printoptions(profile="default")


@pytest.mark.parametrize("expr, expected", REPRS, ids=[e for e, _ in REPRS])
def test_repr_matches_pytorch(expr, expected):
    t = eval(expr)
    assert repr(t) == expected
    assert str(t) == expected


@pytest.mark.parametrize("options, expr, expected", WITH_OPTIONS, ids=[f"{o}-{e}" for o, e, _ in WITH_OPTIONS])
def test_repr_under_print_options_matches_pytorch(options, expr, expected):
    nbgrad.set_printoptions(**options)
    assert repr(eval(expr)) == expected


def test_printoptions_context_restores_and_profile_resets():
    with _format.printoptions(precision=1):
        assert repr(nb.tensor([1.25, 2.0])) == "tensor([1.2, 2.0])"
        assert _format.get_printoptions()["precision"] == 1
    assert _format.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                                         "sci_mode": None}
    nbgrad.set_printoptions(precision=2, threshold=5, edgeitems=1, linewidth=20)
    nbgrad.set_printoptions(profile="default")
    assert _format.get_printoptions()["linewidth"] == 80
    assert repr(nb.tensor([1.12345])) == "tensor([1.1235])"


def test_parameter_and_subclass_prefixes():
    p = nbgrad.nn.Parameter(nb.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"

    class MyTensor(nbgrad.Tensor):
        pass
    # PyTorch prints a subclass under its own name: MyTensor([1., 2.])
    assert repr(MyTensor([1.0, 2.0])) == "MyTensor([1., 2.])"


def test_format_spec_of_a_0d_tensor():
    assert f"{nb.tensor(2.5):.2f}" == "2.50"
    assert f"{nb.tensor([1.0])}" == "tensor([1.])"
    # a plain 0-dim tensor formats as its number even without a spec (f"loss {loss}"), a
    # Parameter as its repr; a spec for a tensor of elements is refused
    assert (f"{nb.tensor(0.0)}", f"{nb.tensor(3)}", f"{nb.tensor(1.5, requires_grad=True)}", f"{nb.tensor(2.5):>5}") \
        == ("0.0", "3", "1.5", "  2.5")
    assert f"{nb.nn.Parameter(nb.tensor(1.0))}" == "Parameter containing:\ntensor(1., requires_grad=True)"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{nb.tensor([1.0, 2.0]):.2f}"


# -- common misuse: PyTorch's error types and texts ---------------------------------------------

def test_assigning_a_non_tensor_grad():
    a = nb.ones(3, requires_grad=True)
    with pytest.raises(TypeError, match="^assigned grad expected to be a Tensor or None but got grad of type float$"):
        a.grad = 1.0
    with pytest.raises(TypeError, match="but got grad of type list$"):
        a.grad = [1.0]
    assert a.grad is None


def test_assigning_a_grad_of_another_size_or_dtype():
    a = nb.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[2\]' to a tensor of size "
                                           r"'\[3\]'. Please ensure that the gradient and the tensor are the same size$"):
        a.grad = nb.ones(2)
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with dtype 'double' to a tensor with "
                                           "grad_dtype 'Float'. The gradient must match"):
        a.grad = nb.ones(3, dtype=nb.float64)
    with pytest.raises(RuntimeError, match="dtype 'long int' to a tensor with grad_dtype 'Float'"):
        a.grad = nb.ones(3, dtype=nb.int64)
    assert a.grad is None
    a.grad = nb.full((3,), 2.0)
    assert a.grad.tolist() == [2.0, 2.0, 2.0]
    a.grad = None
    assert a.grad is None


def test_integer_tensors_cannot_require_grad():
    # PyTorch 2.13's three texts: requires_grad_()'s, the setter's and the factories'
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        nb.ones(2, dtype=nb.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients$"):
        nb.ones(2, dtype=nb.int64).requires_grad = True
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        nb.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        nb.zeros(2, dtype=nb.int64, requires_grad=True)


def test_requires_grad_must_be_a_bool():
    a = nb.ones(3)
    with pytest.raises(RuntimeError, match="^requires_grad must be a bool$"):
        a.requires_grad = 1
    assert a.requires_grad is False


# named tuples: PyTorch's torch.return_types.<op>(...) (out variants: <op>_out)
RETURN_TYPES = [
    ('nb.max(x, 1)',
     'nbgrad.return_types.max(\nvalues=tensor([3., 4.]),\nindices=tensor([2, 1]))'),
    ('nb.min(x, 0, keepdim=True)',
     'nbgrad.return_types.min(\nvalues=tensor([[ 0.5000, -2.0000, -1.0000]]),\nindices=tensor([[1, 0, 1]]))'),
    ('x.sort(1)',
     'nbgrad.return_types.sort(\nvalues=tensor([[-2.0000,  1.5000,  3.0000],\n        [-1.0000,  0.5000,  4.0000]]),\nindices=tensor([[1, 0, 2],\n        [2, 0, 1]]))'),
    ('x.topk(2)',
     'nbgrad.return_types.topk(\nvalues=tensor([[3.0000, 1.5000],\n        [4.0000, 0.5000]]),\nindices=tensor([[2, 0],\n        [1, 0]]))'),
    ('nb.linalg.slogdet(A)',
     'nbgrad.return_types.linalg_slogdet(\nsign=tensor(1.),\nlogabsdet=tensor(1.6094))'),
    ('nb.max(x, 1, out=(nb.empty(0), nb.empty(0, dtype=nb.int64)))',
     'nbgrad.return_types.max_out(\nvalues=tensor([3., 4.]),\nindices=tensor([2, 1]))'),
    ('nb.linalg.slogdet(A, out=(nb.empty(0), nb.empty(0)))',
     'nbgrad.return_types.linalg_slogdet_out(\nsign=tensor(1.),\nlogabsdet=tensor(1.6094))'),
]



@pytest.mark.parametrize("expr, expected", RETURN_TYPES, ids=[e for e, _ in RETURN_TYPES])
def test_return_types_print_as_pytorchs(expr, expected):
    x = nb.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
    A = nb.tensor([[2.0, 1.0], [1.0, 3.0]])
    assert repr(eval(expr, {"nb": nb, "x": x, "A": A})) == expected
