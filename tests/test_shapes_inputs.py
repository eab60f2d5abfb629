"""Bad input raises ValueError or TypeError naming the argument; never a crash or a silent NaN."""

import numpy as np
import pytest

import paperkernels.shapes as ps

SQUARE = np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)])


@pytest.mark.parametrize(
    "N, error, message",
    [
        (-1, ValueError, r"N: expected an integer in \[0, 200\]"),
        (201, ValueError, r"N: expected an integer in \[0, 200\]"),
        (2.0, TypeError, "N: expected an integer"),
    ],
)
def test_order_out_of_range(N, error, message):
    with pytest.raises(error, match=message):
        ps.zernike_moments(np.zeros((4, 4)), N)
    with pytest.raises(error, match=message):
        ps.XShapeEncoder(N)


@pytest.mark.parametrize(
    "masks, message",
    [
        (np.full((8, 8), 1.5), r"masks: expected values in \[0, 1\].*got 1.5"),
        (np.full((2, 8, 8), -0.1), r"masks: expected values in \[0, 1\]"),
        (np.full((8, 8), np.nan), r"masks: expected values in \[0, 1\].*got nan"),
        (np.full((8, 8), 255, dtype=np.uint8), r"masks: expected values in \[0, 1\] \(scale 0-255 images by 1/255\)"),
        (np.zeros(8), r"masks: expected a 2-d mask \(H, W\) or a 3-d batch \(B, H, W\), got shape \(8,\)"),
        (np.zeros((1, 1, 8, 8)), r"masks: expected a 2-d mask"),
        (np.zeros((0, 8, 8)), r"masks: expected a non-empty mask"),
        (np.zeros((8, 0)), r"masks: expected a non-empty mask"),
    ],
)
def test_bad_masks(masks, message):
    with pytest.raises(ValueError, match=message):
        ps.zernike_moments(masks, 4, input="cartesian")
    with pytest.raises(ValueError, match=message.replace("masks", "(masks|shapes)")):
        ps.XShapeEncoder(4).encode_geometry(masks)


def test_bad_mask_types():
    with pytest.raises(TypeError, match="masks: expected real numbers in"):
        ps.zernike_moments(np.zeros((4, 4), dtype=complex), 2, input="cartesian")
    with pytest.raises(TypeError, match="masks: expected real numbers in"):
        ps.zernike_moments(np.array([["a"]]), 2, input="cartesian")
    with pytest.raises(TypeError, match="masks: expected an array, got None"):
        ps.zernike_moments(None, 2, input="cartesian")


@pytest.mark.parametrize(
    "polygon, error, message",
    [
        ([], ValueError, "polygons: expected at least one polygon"),
        (
            np.array([(0, 0), (0.5, 0)]),
            ValueError,
            r"polygons\[0\]: expected rings of at least 3 distinct vertices, got 2",
        ),
        ([np.array([(0, 0), (0.5, 0)])], ValueError, r"polygons\[0\]: expected rings of at least 3 distinct vertices"),
        (np.array([(0, 0), (0.2, 0.2), (0.4, 0.4)]), ValueError, r"polygons\[0\]: expected a polygon of positive area"),
        (np.array([(0, 0), (0.5, np.nan), (0.5, 0.5)]), ValueError, r"polygons\[0\]: expected finite vertices"),
        (
            SQUARE * 2,
            ValueError,
            r"polygons\[0\]: expected vertices in the closed unit disk, got radius 1.41421.*normalize",
        ),
        (
            {"type": "LineString", "coordinates": [[0, 0], [1, 1]]},
            ValueError,
            "polygons: expected a Polygon or MultiPolygon",
        ),
        ([SQUARE, "square"], TypeError, r"polygons\[1\]: expected a polygon as a \(V, 2\) array"),
        ([np.zeros((4, 3))], TypeError, r"polygons\[0\]: expected a polygon"),
    ],
)
def test_bad_polygons(polygon, error, message):
    with pytest.raises(error, match=message):
        ps.zernike_moments(polygon, 6, input="polygon")


def test_object_arrays_of_numbers_read_as_polygons():
    # numpy reads object arrays element by element; so do the polygon inputs, in every entry point.
    triangle = np.array([(0.0, 0.0), (0.5, 0.0), (0.25, 0.5)])
    boxed = triangle.astype(object)
    assert np.array_equal(ps.rasterize(boxed, 16), ps.rasterize(triangle, 16))
    assert np.array_equal(ps.zernike_moments(boxed, 6), ps.zernike_moments(triangle, 6))
    assert np.array_equal(ps.normalize(boxed)[1], ps.normalize(triangle)[1])
    ragged = np.empty(2, dtype=object)
    ragged[0], ragged[1] = triangle, SQUARE
    assert np.array_equal(ps.rasterize(ragged, 16), ps.rasterize([triangle, SQUARE], 16))
    units, poses = ps.normalize(ragged)
    expected_units, expected_poses = ps.normalize([triangle, SQUARE])
    assert np.array_equal(poses, expected_poses)
    assert all(np.array_equal(a, b) for a, b in zip(units, expected_units, strict=True))
    back = ps.denormalize(np.array(units + [None], dtype=object)[:2], poses)
    assert all(np.allclose(a, b) for a, b in zip(back, [triangle, SQUARE], strict=True))
    with pytest.raises(ValueError, match="polygons: expected coordinates within float64"):
        ps.rasterize(np.array([[0, 0], [1, 0], [10**400, 1]], dtype=object), 16)


@pytest.mark.parametrize("element", ["0.5", None, True, np.timedelta64(1, "s")])
def test_object_arrays_of_non_numbers_refused(element):
    boxed = np.array([(0.0, 0.0), (0.5, 0.0), (0.25, 0.5)]).astype(object)
    boxed[1, 0] = element
    message = (
        rf"polygons: expected real \(x, y\) vertex coordinates, got an object array holding {type(element).__name__}"
    )
    with pytest.raises(TypeError, match=message):
        ps.rasterize(boxed, 16)
    with pytest.raises(TypeError, match="expected real"):
        ps.zernike_moments(boxed, 6)


def test_hole_only_polygon_has_no_area():
    with pytest.raises(ValueError, match=r"polygons\[0\]: expected a polygon of positive area"):
        ps.zernike_moments([[SQUARE, SQUARE]], 4, input="polygon")


def test_normalize_bad_input():
    with pytest.raises(ValueError, match="shape: mask 1 has no foreground pixel"):
        ps.normalize(np.stack([np.ones((4, 4)), np.zeros((4, 4))]))
    with pytest.raises(ValueError, match=r"shape\[0\]: expected a polygon of positive area"):
        ps.normalize(np.array([(0, 0), (1, 1), (2, 2)]))
    with pytest.raises(ValueError, match=r"margin: expected a number in \[0, 1\)"):
        ps.normalize(SQUARE, margin=1.0)
    with pytest.raises(ValueError, match=r"pose: expected \(3,\) or \(B, 3\)"):
        ps.denormalize(SQUARE, [1.0, 2.0])
    with pytest.raises(ValueError, match="pose: expected a positive scale"):
        ps.denormalize(SQUARE, [0.0, 0.0, -1.0])
    with pytest.raises(ValueError, match="compat: expected one of 'xshapeenc-0.1.2'"):
        ps.normalize(SQUARE, compat="xshapeenc")


@pytest.mark.parametrize("beta", [-0.1, 2.5, float("nan")])
def test_beta_outside_0_2_is_refused(beta):
    enc = ps.XShapeEncoder(6, input="polygon")
    with pytest.raises(ValueError, match="beta: expected"):
        enc.encode_joint(SQUARE, [0.1, 0.2, 1.0], beta)


def test_encoder_configuration_errors():
    with pytest.raises(ValueError, match=r"encode_len: expected an integer in \[1, "):
        ps.XShapeEncoder(encode_len=0)
    with pytest.raises(ValueError, match="exact_len: expected encode_len to be given"):
        ps.XShapeEncoder(8, exact_len=True)
    with pytest.raises(ValueError, match="dtype: expected float32 or float64"):
        ps.XShapeEncoder(8, dtype=np.int32)
    with pytest.raises(ValueError, match="input: expected one of"):
        ps.XShapeEncoder(8, input="raster")
    with pytest.raises(ValueError, match="input: compat mode reproduces the reference's 'cartesian' and 'polar'"):
        ps.XShapeEncoder(8, input="polygon", compat="xshapeenc-0.1.2")
    with pytest.raises(ValueError, match="freqprop: expected a finite number"):
        ps.XShapeEncoder(8, freqprop=float("inf"))


def test_encoder_call_errors():
    enc = ps.XShapeEncoder(6, input="polygon")
    code = enc.encode_geometry(SQUARE)
    with pytest.raises(ValueError, match=r"codes: expected shape \(32,\) or \(B, 32\), got \(31,\)"):
        enc.decode_geometry(code[:-1])
    with pytest.raises(ValueError, match="codes: expected finite values"):
        enc.decode_geometry(np.full_like(code, np.nan))
    with pytest.raises(ValueError, match="poses: expected 1 rows, one per shape, got 2"):
        enc.encode_joint(SQUARE, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="codes: invariant codes hold magnitudes only"):
        inv = ps.XShapeEncoder(6, input="polygon", invariant=True)
        inv.decode_geometry(inv.encode_geometry(SQUARE))
    with pytest.raises(ValueError, match="grid: expected one of"):
        enc.decode_geometry(code, grid="spherical")


def test_pose_encoder_errors():
    with pytest.raises(ValueError, match=r"K: expected an integer in \[1, 4096\]"):
        ps.PoseEncoder(0)
    with pytest.raises(ValueError, match=r"L: expected an integer in \[1, 4096\]"):
        ps.PoseEncoder(3, L=0)
    with pytest.raises(ValueError, match=r"sigma: expected a number in \[1e-150, 1e\+150\]"):
        ps.PoseEncoder(3, sigma=0.0)
    enc = ps.PoseEncoder(3, L=8)
    with pytest.raises(ValueError, match=r"pose: expected shape \(3,\) or \(B, 3\), got \(4,\)"):
        enc.encode([1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"codes: expected shape \(8,\) or \(B, 8\)"):
        enc.decode(np.zeros(7))
    with pytest.raises(ValueError, match="pose: expected finite values"):
        enc.encode([1, np.nan, 3])


def test_coefficient_function_errors():
    with pytest.raises(ValueError, match=r"z: expected a last axis of length S\(N\)"):
        ps.freqprop(np.zeros(5, dtype=complex))
    with pytest.raises(ValueError, match="z: expected finite values"):
        ps.inverse_freqprop(np.full(4, np.nan, dtype=complex))
    with pytest.raises(ValueError, match=r"coefficients: expected a last axis of length S\(N\)"):
        ps.synthesize(np.zeros(7, dtype=complex), 16)
    with pytest.raises(ValueError, match="m: expected n - m even"):
        ps.radial(4, 1, 0.5)
    with pytest.raises(ValueError, match=r"rho: expected values in \[0.0, 1.0\]"):
        ps.radial_table(4, [0.5, 1.2])
    with pytest.raises(ValueError, match=r"res: expected an integer in \[1, "):
        ps.synthesize(np.zeros(4, dtype=complex), 0)
